import { createHash, generateKeyPairSync, sign } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  lstatSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/helpers/tmp.js';
import { sha256File } from '../../shared/sha256-file.js';
import { SIGNED_SUMS_CONTEXT, SUMS_SIGNATURE_HEADER } from '../../shared/wire/agent-update.js';
import { UpdateFiles } from './state.js';
import { NO_UPDATE_KEY, type Trial, Updater, type UpdaterDeps } from './updater.js';

/** The board's signing key, and a stranger's. */
const boardKey = generateKeyPairSync('ed25519');
const strangerKey = generateKeyPairSync('ed25519');
const UPDATE_KEY = boardKey.publicKey.export({ format: 'jwk' }).x as string;
const signed = (text: string, key = boardKey.privateKey) =>
  sign(null, Buffer.from(SIGNED_SUMS_CONTEXT + text), key).toString('base64');

const sha = (text: string) => createHash('sha256').update(text).digest('hex');
const OLD = 'console.log("old agent");\n';
const NEW = 'console.log("new agent");\n';

/**
 * A board's /agent/ whose answers the test sets: SHA256SUMS, its signature (default: the board's
 * key over the sums; null: none) and the file's bytes.
 */
let served: { sums: string; file: string; signature?: string | null } = { sums: '', file: '' };
let requests: string[] = [];
let server: Server;
let board: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    requests.push(req.url ?? '');
    if (req.url === '/agent/SHA256SUMS') {
      const signature = served.signature === undefined ? signed(served.sums) : served.signature;
      if (signature !== null) res.setHeader(SUMS_SIGNATURE_HEADER, signature);
      res.end(served.sums);
    } else if (req.url === '/agent/panoptes-agent.mjs') res.end(served.file);
    else res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  board = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

/** An updater over a file of the test's; `trial` plays the new process. */
async function setup(trial: (files: UpdateFiles) => Trial, extra: Partial<UpdaterDeps> = {}) {
  const dir = tempDir('panoptes-updater-');
  const path = dir.write('panoptes-agent.mjs', OLD);
  const files = new UpdateFiles(dir.path);
  const steps: string[] = [];
  const updater = await Updater.open({
    self: { name: 'panoptes-agent.mjs', path },
    ownSha: sha(OLD),
    source: { board, ca: null, key: UPDATE_KEY },
    files,
    log: { info: () => undefined, warn: () => undefined, error: () => undefined },
    now: () => new Date(0),
    pause: async () => {
      steps.push('pause');
    },
    resume: async () => {
      steps.push('resume');
    },
    spawn: () => {
      steps.push('spawn');
      return trial(files);
    },
    finish: () => steps.push('finish'),
    hash: sha256File,
    pollMs: 20,
    ...extra,
  });
  requests = [];
  const ended = async () => {
    for (let i = 0; i < 200 && updater.refusal() !== null; i += 1) {
      await new Promise((r) => setTimeout(r, 25));
    }
    return updater.fields().update_outcome;
  };
  return { dir, path, files, steps, updater, ended };
}

/** A new process that never reports, ended by the first signal. */
function silentTrial(): Trial {
  let end: (e: { code: number | null; signal: string | null }) => void = () => undefined;
  const exited = new Promise<{ code: number | null; signal: string | null }>((r) => {
    end = r;
  });
  return { pid: 4242, exited, kill: (signal) => end({ code: null, signal }) };
}

describe('Updater', () => {
  it.each([
    ['without a signature', null, 'came without a signature'],
    ['signed by another key', 'stranger', 'not signed by this agent'],
    ['with a signature of other sums', 'other', 'not signed by this agent'],
    ['with a malformed signature', 'not base64 at all!', 'not signed by this agent'],
  ])('refuses SHA256SUMS %s and downloads nothing', async (_what, how, detail) => {
    const sums = `${sha(NEW)}  panoptes-agent.mjs\n`;
    const signature =
      how === 'stranger'
        ? signed(sums, strangerKey.privateKey)
        : how === 'other'
          ? signed(`${sha(OLD)}  panoptes-agent.mjs\n`)
          : how;
    served = { sums, file: NEW, signature };
    const t = await setup(silentTrial);
    expect(t.updater.request()).toBeNull();
    const o = await t.ended();
    expect(o?.state).toBe('refused');
    expect(o?.detail).toContain(detail);
    expect(requests).toEqual(['/agent/SHA256SUMS']);
    expect(readFileSync(t.path, 'utf8')).toBe(OLD);
    expect(existsSync(`${t.path}.new`)).toBe(false);
    expect(t.steps).toEqual([]);
    t.dir.cleanup();
  });

  it('takes no update at all without a pinned update_key', async () => {
    served = { sums: `${sha(NEW)}  panoptes-agent.mjs\n`, file: NEW };
    const t = await setup(silentTrial, { source: { board, ca: null, key: null } });
    expect(t.updater.request()).toBe(NO_UPDATE_KEY);
    expect(t.updater.fields().update_outcome).toBeUndefined();
    // Handed in a report's answer (no answer carries the refusal): the outcome says why.
    expect(t.updater.request('q9')).toBe(NO_UPDATE_KEY);
    expect(t.updater.fields().update_outcome).toMatchObject({
      state: 'refused',
      detail: NO_UPDATE_KEY,
    });
    expect(t.updater.request('q9')).toBe('this update request was taken already');
    expect(requests).toEqual([]);
    expect(readFileSync(t.path, 'utf8')).toBe(OLD);
    t.dir.cleanup();
  });

  it('refuses a file that does not match SHA256SUMS and replaces nothing', async () => {
    served = { sums: `${sha(NEW)}  panoptes-agent.mjs\n`, file: 'tampered bytes\n' };
    const t = await setup(silentTrial);
    expect(t.updater.request()).toBeNull();
    const o = await t.ended();
    expect(o?.state).toBe('refused');
    expect(o?.detail).toContain('does not match SHA256SUMS');
    expect(readFileSync(t.path, 'utf8')).toBe(OLD);
    expect(existsSync(`${t.path}.new`)).toBe(false);
    expect(existsSync(`${t.path}.prev`)).toBe(false);
    expect(t.steps).toEqual([]);
    t.dir.cleanup();
  });

  it("refuses the board's file when it is its own, without downloading it", async () => {
    served = { sums: `${sha(OLD)}  panoptes-agent.mjs\n`, file: OLD };
    const t = await setup(silentTrial);
    t.updater.request('q1');
    expect((await t.ended())?.detail).toBe("already the board's file");
    expect(requests).toEqual(['/agent/SHA256SUMS']);
    // The board's queue handing the same request again is not taken twice.
    expect(t.updater.request('q1')).toBe('this update request was taken already');
    t.dir.cleanup();
  });

  it('rolls back when the new file does not report in time', async () => {
    served = { sums: `${sha(NEW)}  panoptes-agent.mjs\n`, file: NEW };
    const t = await setup(silentTrial, { trialMs: 1000 });
    const mode = statSync(t.path).mode;
    t.updater.request();
    const o = await t.ended();
    expect(o).toMatchObject({ state: 'rolled_back', to_sha256: sha(NEW) });
    expect(o?.detail).toBe('the new file did not report within 1 s');
    expect(t.steps).toEqual(['pause', 'spawn', 'resume']);
    expect(readFileSync(t.path, 'utf8')).toBe(OLD);
    expect(statSync(t.path).mode).toBe(mode);
    expect((await t.files.record())?.state).toBe('rolled_back');
    expect(t.updater.fields().agent_sha256).toBe(sha(OLD));
    t.dir.cleanup();
  });

  it('hands over once the new process confirms; the new one records the outcome', async () => {
    served = { sums: `${sha(NEW)}  panoptes-agent.mjs\n`, file: NEW };
    let newOne: Updater | null = null;
    let confirmed: Promise<void> = Promise.resolve();
    const t = await setup((files) => {
      // The new process: starts (seeing itself on trial), then its first report is accepted.
      confirmed = (async () => {
        newOne = await Updater.open({ ...baseOf(t), ownSha: sha(NEW), files });
        await newOne.confirm();
      })();
      return silentTrial();
    });
    const baseOf = (x: { path: string }) =>
      ({
        self: { name: 'panoptes-agent.mjs', path: x.path },
        source: { board, ca: null, key: UPDATE_KEY },
        log: { info: () => undefined, warn: () => undefined, error: () => undefined },
        now: () => new Date(0),
        pause: async () => undefined,
        resume: async () => undefined,
        spawn: silentTrial,
        finish: () => undefined,
        hash: sha256File,
      }) as const;
    writeFileSync(`${t.path}.prev`, 'an older .prev is replaced');
    t.updater.request();
    for (let i = 0; i < 200 && !t.steps.includes('finish'); i += 1) {
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(t.steps).toEqual(['pause', 'spawn', 'finish']);
    expect(readFileSync(t.path, 'utf8')).toBe(NEW);
    expect(readFileSync(`${t.path}.prev`, 'utf8')).toBe(OLD);
    // The old process finishes once the record says confirmed; the new one writes the outcome
    // just after it.
    await confirmed;
    expect((await t.files.outcome())?.state).toBe('updated');
    expect((newOne as Updater | null)?.fields().update_outcome?.state).toBe('updated');
    t.dir.cleanup();
  });

  it('settles an update a kill left trying, when the old file starts again', async () => {
    served = { sums: `${sha(NEW)}  panoptes-agent.mjs\n`, file: NEW };
    const first = await setup(silentTrial);
    await first.files.writeRecord({
      state: 'trying',
      file: 'panoptes-agent.mjs',
      path: first.path,
      from_sha256: sha(OLD),
      to_sha256: sha(NEW),
      started_at: new Date(0).toISOString(),
    });
    writeFileSync(`${first.path}.new`, 'half a download');
    const again = await Updater.open({
      self: { name: 'panoptes-agent.mjs', path: first.path },
      ownSha: sha(OLD),
      source: { board, ca: null, key: UPDATE_KEY },
      files: first.files,
      log: { info: () => undefined, warn: () => undefined, error: () => undefined },
      now: () => new Date(0),
      pause: async () => undefined,
      resume: async () => undefined,
      spawn: silentTrial,
      finish: () => undefined,
      hash: sha256File,
    });
    expect(again.fields().update_outcome?.state).toBe('rolled_back');
    expect(existsSync(`${first.path}.new`)).toBe(false);
    expect(again.refusal()).toBeNull();
    first.dir.cleanup();
  });

  it('never writes through a link planted at .new: its target is unchanged, the agent file stays a file', async () => {
    served = { sums: `${sha(NEW)}  panoptes-agent.mjs\n`, file: NEW };
    const elsewhere = tempDir('panoptes-updater-victim-');
    const victim = elsewhere.write('victim', 'not the agent\n');
    chmodSync(victim, 0o640);
    let atSpawn: { link: boolean; text: string } | null = null;
    const t = await setup(
      () => {
        atSpawn = { link: lstatSync(t.path).isSymbolicLink(), text: readFileSync(t.path, 'utf8') };
        return silentTrial();
      },
      { trialMs: 300 },
    );
    symlinkSync(victim, `${t.path}.new`);
    t.updater.request();
    expect((await t.ended())?.state).toBe('rolled_back');
    // The new file was put in place as a file of its own, not as the planted link.
    expect(atSpawn).toEqual({ link: false, text: NEW });
    expect(readFileSync(victim, 'utf8')).toBe('not the agent\n');
    expect(statSync(victim).mode & 0o777).toBe(0o640);
    expect(lstatSync(t.path).isSymbolicLink()).toBe(false);
    expect(readFileSync(t.path, 'utf8')).toBe(OLD);
    t.dir.cleanup();
    elsewhere.cleanup();
  });

  it('says why it cannot update: off, not one file', async () => {
    const t = await setup(silentTrial, { source: null });
    expect(t.updater.request()).toContain('updates from the board are off');
    expect(t.updater.fields()).toMatchObject({ updates: 'off', agent_file: 'panoptes-agent.mjs' });
    const clone = await setup(silentTrial, { self: null, ownSha: null });
    expect(clone.updater.request()).toContain('does not run from one agent file');
    expect(clone.updater.fields()).toEqual({ updates: 'on' });
    t.dir.cleanup();
    clone.dir.cleanup();
  });
});
