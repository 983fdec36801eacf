import { lstatSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { type PgServer, startPostgres } from '../harness/postgres.js';
import { type RunningProgram, startAgent, startBoard } from '../harness/processes.js';
import { BOARD_KEY, OPERATOR, REGISTRATION, SECRETS } from './helpers/agent-fixtures.js';
import {
  eventually,
  Recorder,
  ringBell,
  writeAgentConfig,
  writeBoardConfig,
} from './helpers/fleet.js';
import { scanForSecretsAfterAll } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

const TOKEN = 'inbox-kept-board-token-8e41c7a2d9'; // secret-scan: token

interface Row {
  machine: string;
  session: string;
  acknowledged_at: string | null;
}
interface MachineRecord {
  name: string;
  acknowledged?: { session: string; at: string }[];
  held_sessions?: { session: string; why: string; text: string; at: string }[];
}

/** A report of a machine the test plays, listing these sessions. */
function report(
  name: string,
  sessions: { session: string; why: string; text: string; at: string }[],
) {
  return {
    name,
    location: `http://${name}.lab:8701`,
    hostname: `${name}.lab`,
    platform: 'linux',
    arch: 'x64',
    uptime_s: 1000,
    load: [0.5, 0.4, 0.3],
    cpus: 4,
    cpu_use: 0.25,
    memory: { total: 16e9, free: 8e9, used: 8e9 },
    disks: [{ path: '/', total: 100e9, free: 40e9, used: 60e9 }],
    services: [],
    sessions,
    version: '0.1.0',
    time: new Date().toISOString(),
  };
}

/**
 * The inbox does not lose a waiting session: a name with a `/` is acknowledged over HTTP, the
 * agent keeps its bells across a restart, the board holds an open session an overview no longer
 * lists, and an ack given on one board reaches another board's live feed at once.
 */
describe('the inbox keeps what waits for a person', () => {
  const dir = tempDir('panoptes-inbox-kept-');
  const http = new Recorder();
  let agent: RunningProgram;
  let pg: PgServer | undefined;
  const programs: RunningProgram[] = [];

  const list = async (board: RunningProgram, query = '') => {
    const r = await http.call(`${board.url}/api/sessions${query}`, { token: TOKEN });
    expect(r.status).toBe(200);
    return (r.json as { sessions: Row[] }).sessions;
  };
  const openNames = async (board: RunningProgram) =>
    (await list(board, '?state=open')).map((s) => `${s.machine}:${s.session}`);
  const post = (board: RunningProgram, path: string) =>
    http.call(`${board.url}${path}`, { method: 'POST', token: TOKEN });
  const boardConfig = (name: string, extra: Record<string, unknown> = {}) =>
    writeBoardConfig(dir, name, {
      board_token: TOKEN,
      registration_token: REGISTRATION,
      sweep_interval: 0.5,
      machines: [{ name: 'web1', url: agent.url, key: BOARD_KEY }],
      history: false,
      ...extra,
    });
  const start = async (config: string) => {
    const board = await startBoard(config);
    programs.push(board);
    return board;
  };

  beforeAll(async () => {
    agent = await startAgent(
      writeAgentConfig(dir, 'web1', {
        name: 'web1',
        token: OPERATOR,
        board_key: BOARD_KEY,
        data_dir: `${dir.path}/web1-data`,
      }),
    );
    programs.push(agent);
  }, 60_000);
  afterAll(async () => {
    for (const p of programs) await p.stop().catch(() => undefined);
    pg?.destroy();
    dir.cleanup();
  });

  it('a session whose name has a / is acknowledged with %2F in the path', async () => {
    for (const session of ['feature/login', 'review/ack', 'a//b', '..', '.']) {
      expect(
        await ringBell(http, agent.url, OPERATOR, { session, why: 'attention', text: '?' }),
      ).toBe(200);
    }
    const board = await start(boardConfig('one'));
    await eventually(
      async () => ((await openNames(board)).length === 5 ? true : undefined),
      'the five sessions listed',
    );
    const answer = await post(board, '/api/sessions/web1/feature%2Flogin/ack');
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({ machine: 'web1', session: 'feature/login' });
    expect((await post(board, '/api/sessions/web1/review%2Fack/ack')).status).toBe(200);
    expect((await post(board, `/api/sessions/web1/${encodeURIComponent('a//b')}/ack`)).status).toBe(
      200,
    );
    // `.` and `..` are folded away as path segments by URL rules (fetch's too): in the query.
    expect((await post(board, '/api/sessions/web1/ack?session=..')).status).toBe(200);
    expect((await post(board, '/api/sessions/web1/ack?session=%2E')).status).toBe(200);
    expect((await post(board, '/api/sessions/web1/ack')).status).toBe(422);
    expect(await openNames(board)).toEqual([]);
    const journal = (await http.call(`${board.url}/api/journal?limit=10`, { token: TOKEN }))
      .json as { entries: { op: string; target: string }[] };
    expect(journal.entries.map((e) => e.target)).toContain('web1/feature/login');

    // Unknown: 404 with the detail; a path that is no ack: 404; another method: 405.
    const unknown = await post(board, '/api/sessions/web1/no%2Fsuch/ack');
    expect(unknown.status).toBe(404);
    expect(unknown.json).toEqual({ detail: "Machine 'web1' lists no session named 'no/such'" });
    expect((await post(board, '/api/sessions/web1/feature%2Flogin/other')).status).toBe(404);
    const get = await http.call(`${board.url}/api/sessions/web1/feature%2Flogin/ack`, {
      token: TOKEN,
    });
    expect(get.status).toBe(405);
    // The name is checked as any session name is: one line.
    expect((await post(board, '/api/sessions/web1/a%2Fb%0Ac/ack')).status).toBe(422);
    const anonymous = await http.call(`${board.url}/api/sessions/web1/feature%2Flogin/ack`, {
      method: 'POST',
    });
    expect(anonymous.status).toBe(401);
  }, 60_000);

  it('the agent keeps its bells across a restart, in data_dir (0600), never through a symlink', async () => {
    const data = `${dir.path}/lab2-data`;
    const file = writeAgentConfig(dir, 'lab2', {
      name: 'lab2',
      token: OPERATOR,
      board_key: BOARD_KEY,
      data_dir: data,
    });
    let lab2 = await startAgent(file);
    programs.push(lab2);
    const ring = async (session: string) =>
      expect(
        await ringBell(http, lab2.url, OPERATOR, { session, why: 'attention', text: 'Allow?' }),
      ).toBe(200);
    await ring('claude · api');
    const sessionsOf = async () =>
      (
        (await http.call(`${lab2.url}/api/overview`, { token: OPERATOR })).json as {
          sessions: { session: string; why: string; at: string }[];
        }
      ).sessions;
    const before = await sessionsOf();
    expect(before.map((s) => s.session)).toEqual(['claude · api']);
    expect(statSync(`${data}/bells.json`).mode & 0o777).toBe(0o600);
    expect(statSync(data).mode & 0o777).toBe(0o700);

    await ring('codex · web');
    expect(lstatSync(`${data}/bells.json`).isFile()).toBe(true);

    await lab2.stop();
    lab2 = await startAgent(file);
    programs.push(lab2);
    const after = await sessionsOf();
    expect(after.map((s) => s.session)).toEqual(['codex · web', 'claude · api']);
    expect(after[1]).toEqual(before[0]);

    // A symlink planted where the file is: not written through; the log names the path.
    const target = `${dir.path}/not-yours.txt`;
    writeFileSync(target, 'keep me');
    rmSync(`${data}/bells.json`);
    symlinkSync(target, `${data}/bells.json`);
    await ring('three');
    expect(readFileSync(target, 'utf8')).toBe('keep me');
    expect(lab2.output.some((l) => l.includes(`${data}/bells.json is a symbolic link`))).toBe(true);
  }, 60_000);

  it('the board holds an open session an overview no longer lists, until it is acknowledged', async () => {
    const board = programs.find((p) => p.name === 'board') as RunningProgram;
    const send = async (sessions: Parameters<typeof report>[1]) => {
      const r = await http.call(`${board.url}/api/report`, {
        method: 'POST',
        token: REGISTRATION,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(report('lab1', sessions)),
      });
      expect(r.status).toBe(200);
    };
    const lab1Open = async () => (await openNames(board)).filter((n) => n.startsWith('lab1:'));
    const at = new Date().toISOString();
    await send([
      { session: 'waits', why: 'attention', text: 'Which branch?', at },
      { session: 'done', why: 'finished', text: 'ok', at },
    ]);
    expect(await lab1Open()).toEqual(['lab1:waits']);
    // The agent restarted without its bells: the waiting session is held, the finished one goes.
    await send([]);
    await send([]);
    expect(await lab1Open()).toEqual(['lab1:waits']);
    expect((await list(board)).filter((s) => s.machine === 'lab1').map((s) => s.session)).toEqual([
      'waits',
    ]);
    const record = await eventually(async () => {
      const view = (await http.call(`${board.url}/api/board`, { token: TOKEN })).json as {
        machines: MachineRecord[];
      };
      const lab1 = view.machines.find((m) => m.name === 'lab1');
      return lab1?.held_sessions === undefined ? undefined : lab1;
    }, 'the record of lab1 with its held session');
    expect(record.held_sessions).toEqual([
      { session: 'waits', why: 'attention', text: 'Which branch?', at },
    ]);
    // Acknowledged: it goes with the next overview.
    expect((await post(board, '/api/sessions/lab1/waits/ack')).status).toBe(200);
    expect(await lab1Open()).toEqual([]);
    await send([]);
    expect((await list(board)).filter((s) => s.machine === 'lab1')).toEqual([]);
  });

  it('an ack given on one board reaches the live feed of another within two seconds', async () => {
    pg = await startPostgres();
    const store = await pg.createDatabase('inbox_kept');
    const cluster = { store, failover_after: 2 };
    const a = await start(boardConfig('a', { ...cluster, board_id: 'a' }));
    const b = await start(boardConfig('b', { ...cluster, board_id: 'b' }));
    expect(
      await ringBell(http, agent.url, OPERATOR, { session: 'deploy', why: 'error', text: 'x' }),
    ).toBe(200);
    for (const board of [a, b]) {
      await eventually(
        async () => ((await openNames(board)).includes('web1:deploy') ? true : undefined),
        `board ${board.url} lists the open session`,
        30_000,
      );
    }
    const feed = new WebSocket(`${b.url.replace('http', 'ws')}/api/live`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    const records: MachineRecord[] = [];
    feed.on('message', (data) => {
      const message = JSON.parse(String(data)) as { type: string; machine?: MachineRecord };
      if (message.type === 'machine' && message.machine !== undefined)
        records.push(message.machine);
    });
    await new Promise<void>((resolve, reject) => {
      feed.once('open', () => resolve());
      feed.once('error', reject);
    });
    try {
      const asked = Date.now();
      expect((await post(a, '/api/sessions/web1/deploy/ack')).status).toBe(200);
      await eventually(
        async () =>
          records.some(
            (r) => r.name === 'web1' && r.acknowledged?.some((k) => k.session === 'deploy'),
          )
            ? true
            : undefined,
        "board b's live feed carries the ack",
        10_000,
      );
      expect(Date.now() - asked).toBeLessThan(2500);
    } finally {
      feed.close();
    }
  }, 90_000);

  scanForSecretsAfterAll(() => ({
    secrets: [TOKEN, ...SECRETS, ...(pg === undefined ? [] : [pg.password])],
    recorders: [http],
    dirs: [dir.path],
  }));
});
