import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { type RunningProgram, startBoard, startProgram, startShell } from '../harness/processes.js';
import { parseEnrollArgs } from '../src/agent/enroll/enroll-args.js';
import { V8_FLAGS } from '../src/agent/v8-flags.js';
import { enrollCommand } from '../src/board/enroll/command.js';
import { eventually, REGISTRATION } from './helpers/agent-fixtures.js';
import { paste, pasteBin } from './helpers/pasted.js';
import { analyze, verifyUnit } from './helpers/systemd.js';
import { tempDir } from './helpers/tmp.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TOKEN = 'enroll-e2e-board-token-7c1d';
const auth = { authorization: `Bearer ${TOKEN}` };

/**
 * Adding a machine from the board, by the API (the browser's dialog: ui-enroll.e2e.test.ts):
 * the one-file agent, the enroll answer and its command run as a shell would in an empty
 * directory with nothing but node and curl, keys kept across a board restart, rotation,
 * revocation, and the systemd unit.
 */
describe('enroll: the one-file agent and the pasted command', () => {
  const dir = tempDir('panoptes-enroll-');
  const configDir = join(dir.path, 'board');
  let board: RunningProgram;
  const pasted: RunningProgram[] = [];
  let machines = 0;
  /** A directory holding only `node` and `curl`: the machine the command is pasted on. */
  const bin = join(dir.path, 'bin');

  const api = async (method: string, path: string, headers: Record<string, string> = auth) => {
    const r = await fetch(`${board.url}${path}`, { method, headers });
    const text = await r.text();
    return { status: r.status, headers: r.headers, text, json: () => JSON.parse(text) };
  };
  const machine = async (name: string) => {
    const all = (await api('GET', '/api/board')).json() as {
      machines: { name: string; state: string; verified: boolean | null }[];
    };
    return all.machines.find((m) => m.name === name);
  };
  const journal = async () =>
    (await api('GET', '/api/journal?limit=200')).json().entries as {
      op: string;
      target: string;
      outcome: string;
      status: number | null;
      detail: string;
    }[];
  /** Runs an enroll command in a new empty directory; resolves when the agent listens. */
  const pasteHere = async (command: string, extra: string) => {
    machines += 1;
    const work = join(dir.path, `machine-${machines}`);
    const started = await paste(`${command} ${extra}`, bin, work);
    pasted.push(started);
    return { work, agent: started };
  };

  beforeAll(async () => {
    await pasteBin(bin);
    dir.write(
      'board/board.yaml',
      stringify({ board_token: TOKEN, registration_token: REGISTRATION, sweep_interval: 0.5 }),
    );
    board = await startBoard(configDir);
  });
  afterAll(async () => {
    await Promise.all(pasted.map((p) => p.stop()));
    await board?.stop();
    dir.cleanup();
  });

  it('serves the agent as one file, openly, with the SHA-256 the enroll answer states', async () => {
    const file = readFileSync(`${ROOT}dist/agent-file/panoptes-agent.mjs`);
    expect(file.length).toBeLessThanOrEqual(3 * 1024 * 1024);
    const r = await fetch(`${board.url}/agent/panoptes-agent.mjs`, {
      headers: { 'accept-encoding': 'identity' },
    });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/javascript/);
    const served = Buffer.from(await r.arrayBuffer());
    const sha = createHash('sha256').update(served).digest('hex');
    expect(sha).toBe(createHash('sha256').update(file).digest('hex'));
    expect(r.headers.get('etag')).toBe(`"${sha}"`);
    const again = await fetch(`${board.url}/agent/panoptes-agent.mjs`, {
      headers: { 'accept-encoding': 'identity', 'if-none-match': `"${sha}"` },
    });
    expect(again.status).toBe(304);
    // The build's gzip of it, to a client that asks (fetch does): the same file once unzipped.
    const zipped = await fetch(`${board.url}/agent/panoptes-agent.mjs`);
    expect(zipped.headers.get('content-encoding')).toBe('gzip');
    expect(zipped.headers.get('etag')).toBe(`"${sha}-gzip"`);
    expect(Buffer.from(await zipped.arrayBuffer()).equals(served)).toBe(true);
    // It runs with nothing beside it: no node_modules, no npm on PATH.
    const alone = join(dir.path, 'alone');
    mkdirSync(alone);
    dir.write('alone/panoptes-agent.mjs', served.toString('utf8'));
    const started = performance.now();
    const { stdout } = await run(join(bin, 'node'), ['panoptes-agent.mjs', '--version'], {
      cwd: alone,
      env: { PATH: bin },
    });
    const ms = performance.now() - started;
    expect(stdout.trim()).toMatch(/^panoptes-agent \d+\.\d+\.\d+$/);
    console.log(
      `agent file: ${(file.length / 1e6).toFixed(2)} MB; node panoptes-agent.mjs --version took ${ms.toFixed(0)} ms`,
    );
  });

  it('the command passes values that begin with "-" (a base64url key may) as values', async () => {
    const key = `-${'k'.repeat(42)}`;
    const command = enrollCommand({
      board: 'http://127.0.0.1:1',
      name: 'lab7',
      key,
      registrationToken: `-${REGISTRATION}`,
      files: [{ name: 'panoptes-agent.mjs', sha256: '0'.repeat(64) }],
      updateKey: 'A'.repeat(43),
    });
    // What sh hands to `node panoptes-agent.mjs enroll`: the words after it, and the two secrets.
    const call = command.slice(command.lastIndexOf(' && ') + 4);
    const shown = call.replace(
      '"$panoptes_run" $panoptes_arg enroll',
      `sh -c 'printf "%s\\n" "$PANOPTES_BOARD_KEY" "$PANOPTES_REGISTRATION_TOKEN" "$@"' enroll`,
    );
    const [k, r, ...words] = (await run('/bin/sh', ['-c', shown])).stdout.trim().split('\n');
    const args = parseEnrollArgs(words, '/m', {
      PANOPTES_BOARD_KEY: k,
      PANOPTES_REGISTRATION_TOKEN: r,
    });
    expect(args.key).toBe(key);
    expect(args.registrationToken).toBe(`-${REGISTRATION}`);
    expect(args.name).toBe('lab7');
  });

  it('refuses a bad name (422), no token (401), and the registration token (403)', async () => {
    expect((await api('POST', '/api/machines/bad%20name/enroll')).status).toBe(422);
    expect((await api('POST', '/api/machines/lab1/enroll', {})).status).toBe(401);
    const reg = await api('POST', '/api/machines/lab1/enroll', {
      authorization: `Bearer ${REGISTRATION}`,
    });
    expect(reg.status).toBe(403);
  });

  it('enrolls: the command runs in an empty directory, writes its config 0600 and reports verified', async () => {
    const r = await api('POST', '/api/machines/lab7/enroll');
    expect(r.status).toBe(200);
    expect(r.headers.get('cache-control')).toBe('no-store');
    const body = r.json() as {
      name: string;
      key: string;
      command: string;
      agent_sha256: string;
      update_key: string;
    };
    // The board's update key, pinned by the enroll: the one GET /agent/update-key serves.
    const served = await fetch(`${board.url}/agent/update-key`);
    expect((await served.text()).trim()).toBe(body.update_key);
    expect(body.name).toBe('lab7');
    expect(body.key.length).toBeGreaterThanOrEqual(32);
    expect(body.command).not.toContain(TOKEN);
    expect(body.command).toContain(`PANOPTES_BOARD_KEY='${body.key}'`);
    expect(body.command).toContain(
      `panoptes_file=panoptes-agent.mjs; panoptes_sum=${body.agent_sha256};`,
    );
    expect(body.command).toContain(`curl -fsSL --compressed '${board.url}/agent/'"$panoptes_file"`);
    expect((await api('GET', '/api/enrollments')).json().enrollments).toEqual([
      { name: 'lab7', enrolled_at: expect.any(String) },
    ]);
    const { work, agent } = await pasteHere(body.command, '--port 0 --interval 1');
    expect(statSync(join(work, 'panoptes-agent.yaml')).mode & 0o777).toBe(0o600);
    const lab7 = await eventually(async () => {
      const m = await machine('lab7');
      return m?.state === 'up' && m.verified === true ? m : undefined;
    }, 'lab7 up and verified');
    expect(lab7.verified).toBe(true);
    expect(readdirSync(work).sort()).toEqual([
      'panoptes-agent-data',
      'panoptes-agent.mjs',
      'panoptes-agent.yaml',
    ]);
    // The key and the registration token are not in the agent's log, nor in the board's.
    for (const line of [...agent.output, ...board.output]) {
      expect(line).not.toContain(body.key);
      expect(line).not.toContain(REGISTRATION);
    }
    // The board's store holds the key: private, like its config.
    expect(statSync(join(configDir, 'data', 'state.db')).mode & 0o777).toBe(0o600);
    // `ps` shows the enroll's arguments, which hold no secret (enroll-safety.e2e.test.ts watches
    // every process's arguments from the paste on).
    const { stdout } = await run('ps', ['-eo', 'args']);
    const agentLine = stdout
      .split('\n')
      .find((l) => l.includes(`--board=${board.url} --name=lab7`));
    expect(agentLine).toBe(
      `node panoptes-agent.mjs enroll --board=${board.url} --name=lab7 --update-key=${body.update_key} --port 0 --interval 1`,
    );
    const config = readFileSync(join(work, 'panoptes-agent.yaml'), 'utf8');
    expect(config).toContain(`update_key: ${body.update_key}`);
  });

  it('says how to start it again, and `node panoptes-agent.mjs` alone finds the config beside it', async () => {
    const first = pasted[0] as RunningProgram;
    const work = join(dir.path, `machine-${machines}`);
    expect(first.output).toContain('panoptes-agent: to start it again: node panoptes-agent.mjs');
    await pasted.shift()?.stop();
    const again = await startShell('node panoptes-agent.mjs', {
      cwd: work,
      env: { PATH: bin, HOME: work },
      timeoutMs: 30_000,
    });
    pasted.push(again);
    const before = (await machine('lab7')) as unknown as { last_seen: string };
    await eventually(async () => {
      const m = (await machine('lab7')) as unknown as { verified: boolean; last_seen: string };
      return m.verified && m.last_seen !== before.last_seen ? m : undefined;
    }, 'lab7 reporting again from `node panoptes-agent.mjs` alone');
  });

  it('keeps the key across a board restart (kill -9), and enrolling again rotates it', async () => {
    // Same port: the agent reports to the address it was given.
    const port = new URL(board.url).port;
    await board.kill9();
    board = await startProgram('board', ['--config', configDir, '--port', port], {
      timeoutMs: 30_000,
    });
    await eventually(
      async () => {
        const m = await machine('lab7');
        return m?.state === 'up' && m.verified === true ? m : undefined;
      },
      'lab7 reporting verified to the restarted board',
      600,
    );
    // A new key: the running agent (old key) is refused, the new command works.
    const r = (await api('POST', '/api/machines/lab7/enroll')).json() as { command: string };
    await eventually(async () => {
      const refused = (await journal()).find(
        (e) => e.op === 'report' && e.target === 'lab7' && e.status === 403,
      );
      return refused;
    }, 'the old key refused');
    await pasted.shift()?.stop();
    await pasteHere(r.command, '--port 0 --interval 1');
    const before = (await machine('lab7')) as unknown as { last_seen: string };
    await eventually(async () => {
      const m = (await machine('lab7')) as unknown as {
        verified: boolean;
        last_seen: string;
      };
      return m.verified && m.last_seen !== before.last_seen ? m : undefined;
    }, 'lab7 verified under its new key');
  });

  it('revokes: the machine is forgotten and its reports are refused (403, journaled) until enrolled again', async () => {
    const r = await api('DELETE', '/api/machines/lab7');
    expect(r.status).toBe(200);
    expect((await api('GET', '/api/enrollments')).json().enrollments).toEqual([]);
    const refused = await eventually(
      async () =>
        (await journal()).find(
          (e) => e.op === 'report' && e.target === 'lab7' && /revoked/.test(e.detail),
        ),
      'a report under the revoked key refused',
      600,
    );
    expect(refused.status).toBe(403);
    expect(await machine('lab7')).toBeUndefined();
    // Revoking a name that never reported works too; an unknown name is 404.
    await api('POST', '/api/machines/lab9/enroll');
    expect((await api('DELETE', '/api/machines/lab9')).status).toBe(200);
    expect((await api('DELETE', '/api/machines/lab9')).status).toBe(404);
  });

  it('--systemd installs the agent in a fixed place (not the paste directory) and writes a unit that systemd-analyze accepts (here into --unit-dir, not enabled)', async () => {
    const r = (await api('POST', '/api/machines/gpu1/enroll')).json() as {
      command: string;
      key: string;
    };
    const work = join(dir.path, 'unit-machine');
    mkdirSync(work);
    const units = join(work, 'units');
    // The fixed place is /var/lib/panoptes-agent for root and ~/.local/share/panoptes-agent for
    // another user (enroll.test.ts); a test names its own, which works for both.
    const installed = join(dir.path, 'var-lib', 'panoptes-agent');
    const { stdout } = await run(
      '/bin/sh',
      ['-c', `${r.command} --systemd --unit-dir units --install-dir ${installed}`],
      { cwd: work, env: { PATH: bin, HOME: work } },
    );
    expect(stdout).toContain('unit written to');
    const unit = readFileSync(join(units, 'panoptes-agent.service'), 'utf8');
    expect(unit).not.toContain(REGISTRATION);
    expect(unit).not.toContain(r.key);
    // The agent file copied there, with its config beside it.
    expect(unit).toContain(
      `ExecStart=${[process.execPath, ...V8_FLAGS, join(installed, 'panoptes-agent.mjs')].map((w) => `"${w}"`).join(' ')} --config "${join(installed, 'panoptes-agent.yaml')}"`,
    );
    expect(unit).toContain(`WorkingDirectory=${installed}\n`);
    // Nothing in the unit depends on the directory the command was pasted in.
    expect(unit).not.toContain(work);
    expect(readdirSync(work).sort()).toEqual(['panoptes-agent.mjs', 'units']);
    expect(readFileSync(join(installed, 'panoptes-agent.mjs'))).toEqual(
      readFileSync(join(work, 'panoptes-agent.mjs')),
    );
    expect(statSync(join(installed, 'panoptes-agent.yaml')).mode & 0o777).toBe(0o600);
    expect(stdout).toContain(`installed ${join(installed, 'panoptes-agent.mjs')}`);
    if (analyze !== null) {
      const scratch = tempDir('panoptes-enroll-unit-');
      try {
        expect(await verifyUnit(scratch, unit, 'panoptes-agent.service')).toEqual({
          code: 0,
          output: '',
        });
      } finally {
        scratch.cleanup();
      }
    }
  });

  it('refuses to enroll while announcing is off (409)', async () => {
    const off = tempDir('panoptes-enroll-off-');
    off.write('board/board.yaml', stringify({ board_token: TOKEN }));
    const quiet = await startBoard(join(off.path, 'board'));
    try {
      const r = await fetch(`${quiet.url}/api/machines/lab7/enroll`, {
        method: 'POST',
        headers: auth,
      });
      expect(r.status).toBe(409);
      expect(((await r.json()) as { detail: string }).detail).toMatch(/registration_token/);
    } finally {
      await quiet.stop();
      off.cleanup();
    }
  });
});
