import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { type RunningProgram, startBoard, startShell } from '../harness/processes.js';
import { eventually } from './helpers/agent-fixtures.js';
import { watchCmdlines } from './helpers/cmdline-watch.js';
import { paste, pasteBin, pasteToEnd } from './helpers/pasted.js';
import { tempDir } from './helpers/tmp.js';

const TOKEN = 'enroll-safety-board-token-2e8f';
const OPERATOR = 'enroll-safety-operator-token-6b0d';
// Of this run alone: the argument watch sees every process on the machine, other tests' too.
const REGISTRATION = `enroll-safety-registration-${randomBytes(12).toString('hex')}`;
const auth = { authorization: `Bearer ${TOKEN}` };
const TAMPERED =
  "import { writeFileSync } from 'node:fs';\nwriteFileSync('ran', 'the tampered file ran');\n";

interface Enrolled {
  key: string;
  command: string;
  agent_sha256: string;
}

/**
 * What the pasted command and the agent it starts keep safe: the file is checked against its
 * SHA-256 before anything runs, the secrets travel in the environment (never in `ps`), the
 * agent's files are its own, and a key revoked on the board stops working on the machine too.
 */
describe('enroll: the checked file, secrets out of ps, private files, revocation on the machine', () => {
  const dir = tempDir('panoptes-enroll-safety-');
  let board: RunningProgram;
  let agent: RunningProgram | undefined;
  const others: RunningProgram[] = [];
  const bin = join(dir.path, 'bin');
  const work = join(dir.path, 'lab-a');
  const dataDir = join(work, 'panoptes-agent-data');
  let enrolled: Enrolled;

  const api = async (method: string, path: string, headers: Record<string, string> = auth) => {
    const r = await fetch(`${board.url}${path}`, { method, headers });
    const text = await r.text();
    return { status: r.status, text, json: () => JSON.parse(text) };
  };
  const enroll = async (name: string): Promise<Enrolled> => {
    const r = await api('POST', `/api/machines/${name}/enroll`);
    expect(r.status).toBe(200);
    return r.json() as Enrolled;
  };
  const onAgent = async (path: string, token: string, method = 'GET') =>
    (
      await fetch(`${agent?.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}` },
      })
    ).status;
  const verified = (name: string) =>
    eventually(async () => {
      const all = (await api('GET', '/api/board')).json() as {
        machines: { name: string; state: string; verified: boolean | null }[];
      };
      const m = all.machines.find((x) => x.name === name);
      return m?.state === 'up' && m.verified === true ? m : undefined;
    }, `${name} up and verified`);

  beforeAll(async () => {
    await pasteBin(bin);
    dir.write(
      'board/board.yaml',
      stringify({ board_token: TOKEN, registration_token: REGISTRATION, sweep_interval: 0.5 }),
    );
    board = await startBoard(join(dir.path, 'board'));
  });
  afterAll(async () => {
    await Promise.all([agent, ...others].map((p) => p?.stop()));
    await board?.stop();
    dir.cleanup();
  });

  it('runs nothing when the downloaded file is not the one the board stated (sha256sum or shasum)', async () => {
    // A server in the way, at the address the command names, serving another file there.
    const tamper = createServer((_req, res) => res.end(TAMPERED));
    await new Promise<void>((resolve) => tamper.listen(0, '127.0.0.1', resolve));
    const host = `127.0.0.1:${(tamper.address() as AddressInfo).port}`;
    try {
      // The board names itself by the Host the enroll request came with.
      const boardPort = new URL(board.url).port;
      const answer = await new Promise<Enrolled>((resolve, reject) => {
        const req = request(
          {
            host: '127.0.0.1',
            port: boardPort,
            method: 'POST',
            path: '/api/machines/lab-t/enroll',
          },
          (res) => {
            let text = '';
            res.on('data', (c: Buffer) => {
              text += c.toString('utf8');
            });
            res.on('end', () => resolve(JSON.parse(text) as Enrolled));
          },
        );
        req.setHeader('host', host);
        req.setHeader('authorization', auth.authorization);
        req.on('error', reject);
        req.end();
      });
      expect(answer.command).toContain(`'http://${host}/agent/'`);
      for (const checksum of ['sha256sum', 'shasum'] as const) {
        const tools = await pasteBin(join(dir.path, `bin-${checksum}-t`), checksum);
        const there = join(dir.path, `tampered-${checksum}`);
        const { code, output } = await pasteToEnd(`${answer.command} --port 0`, tools, there);
        expect(code, output).not.toBe(0);
        expect(output).toMatch(/does not match the SHA-256 the board gave/);
        expect(existsSync(join(there, 'ran'))).toBe(false);
        // Nothing left to be run later by mistake, and no config written.
        expect(readdirSync(there)).toEqual([]);
      }
    } finally {
      tamper.close();
    }
    // The honest file passes the check where only shasum is there (sha256sum: the tests below).
    const honest = await enroll('lab-s');
    const tools = await pasteBin(join(dir.path, 'bin-shasum'), 'shasum');
    others.push(await paste(`${honest.command} --port 0`, tools, join(dir.path, 'lab-s')));
    await verified('lab-s');
  });

  it('keeps the key and the registration token out of every process argument', async () => {
    enrolled = await enroll('lab-a');
    // A config already there keeps its services; its location is one the board cannot reach
    // (as behind NAT), so the board hands actions over in the answers to reports.
    dir.write(
      'lab-a/panoptes-agent.yaml',
      stringify({
        name: 'lab-a',
        token: OPERATOR,
        location: 'http://127.0.0.1:9',
        services: { noop: { start: ['/bin/true'], board: ['start'] } },
      }),
    );
    const canary = `cmdline-watch-canary-${process.pid}`;
    const watch = await watchCmdlines([enrolled.key, REGISTRATION, canary]);
    // The watch can fail: a process with the canary in its arguments is seen.
    const shown = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 300)', canary]);
    await once(shown, 'exit');
    agent = await paste(`${enrolled.command} --port 0 --interval 1`, bin, work);
    await verified('lab-a');
    // A few reports more: the running agent is watched too.
    await new Promise((r) => setTimeout(r, 2500));
    const { hits, scans } = await watch.stop();
    expect(scans).toBeGreaterThan(20);
    expect(hits).toEqual([expect.stringContaining('<secret 2>')]);
    expect(enrolled.command).toContain(`PANOPTES_BOARD_KEY='${enrolled.key}'`);
    expect(enrolled.command).not.toMatch(/--key|--registration-token/);
  });

  it('keeps its files to itself: data directory 0700, every file 0600, after a handed action', async () => {
    const queued = await api('POST', '/api/do/lab-a/noop/start');
    expect(queued.json()).toMatchObject({ queued: true });
    const ran = join(dataDir, 'handed-actions.jsonl');
    await eventually(
      async () =>
        existsSync(ran) && readFileSync(ran, 'utf8').includes('"status":200') ? true : undefined,
      'the handed action recorded',
    );
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    expect(readdirSync(dataDir)).toEqual(['handed-actions.jsonl']);
    for (const file of readdirSync(dataDir)) {
      expect([file, statSync(join(dataDir, file)).mode & 0o777]).toEqual([file, 0o600]);
    }
    expect(statSync(join(work, 'panoptes-agent.yaml')).mode & 0o777).toBe(0o600);
  });

  it('refuses a key the board revoked, at once and after a restart; its own token still works', async () => {
    expect(await onAgent('/api/overview', enrolled.key)).toBe(200);
    expect((await api('DELETE', '/api/machines/lab-a')).status).toBe(200);
    await eventually(
      async () => ((await onAgent('/api/overview', enrolled.key)) === 401 ? true : undefined),
      'the agent refusing the revoked key',
    );
    expect(await onAgent('/api/do/noop/start', enrolled.key, 'POST')).toBe(401);
    expect(await onAgent('/api/overview', OPERATOR)).toBe(200);
    // Logged once, though every report after is refused too.
    await eventually(
      async () => (agent?.output.some((l) => l.includes('report failed again')) ? true : undefined),
      'a second refused report',
      200,
    );
    expect(
      agent?.output.filter((l) => /revoked/.test(l) && /no longer honoured/.test(l)),
    ).toHaveLength(1);
    // After a restart the key stays refused; the record of it is private like the rest.
    await agent?.stop();
    agent = await startShell('node panoptes-agent.mjs --config panoptes-agent.yaml --port 0', {
      cwd: work,
      env: { PATH: bin, HOME: work },
    });
    expect(await onAgent('/api/overview', enrolled.key)).toBe(401);
    expect(await onAgent('/api/overview', OPERATOR)).toBe(200);
    // A rewrite of the handed-actions file may be under way (its .tmp): private as well.
    const files = readdirSync(dataDir);
    expect(files.filter((f) => !f.endsWith('.tmp')).sort()).toEqual([
      'handed-actions.jsonl',
      'revoked-board-keys',
    ]);
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    for (const file of files) {
      try {
        expect([file, statSync(join(dataDir, file)).mode & 0o777]).toEqual([file, 0o600]);
      } catch (error) {
        // A .tmp renamed away between the listing and the stat is gone, not public.
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    }
    // Adding the machine again gives a new key, which the agent honours once enrolled with it.
    await agent.stop();
    const again = await enroll('lab-a');
    agent = await paste(`${again.command} --port 0 --interval 1`, bin, work);
    await verified('lab-a');
    expect(await onAgent('/api/overview', again.key)).toBe(200);
    expect(await onAgent('/api/overview', enrolled.key)).toBe(401);
    expect(parse(readFileSync(join(work, 'panoptes-agent.yaml'), 'utf8')).token).toBe(OPERATOR);
  });
});
