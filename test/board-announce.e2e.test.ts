import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { type RunningProgram, startBoard } from '../harness/processes.js';
import { eventually, Recorder, writeBoardConfig } from './helpers/fleet.js';
import { scanForSecretsAfterAll } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

const TOKEN = 'announce-board-token-0123456789';
const REGISTRATION = 'announce-registration-0123456789';
const KEY = 'announce-machine-key-0123456789';

interface Entry {
  who: string;
  op: string;
  target: string;
  outcome: string;
  status: number | null;
}

/** A WebSocket client that keeps every message. */
async function live(
  url: string,
): Promise<{ messages: Record<string, unknown>[]; socket: WebSocket }> {
  const socket = new WebSocket(`${url.replace('http', 'ws')}/api/live?token=${TOKEN}`);
  const messages: Record<string, unknown>[] = [];
  socket.on('message', (data) => messages.push(JSON.parse(String(data))));
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  return { messages, socket };
}

describe('announced machines, the queue, the journal and the live feed', () => {
  const dir = tempDir();
  const http = new Recorder();
  let board: RunningProgram;
  const report = (body: Record<string, unknown>, token = REGISTRATION) =>
    http.call(`${board.url}/api/report`, {
      method: 'POST',
      token,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const journal = async (limit = 20) =>
    (
      (await http.call(`${board.url}/api/journal?limit=${limit}`, { token: TOKEN })).json as {
        entries: Entry[];
      }
    ).entries;

  beforeAll(async () => {
    board = await startBoard(
      writeBoardConfig(dir, 'b', {
        board_token: TOKEN,
        registration_token: REGISTRATION,
        stale_after: 1,
        max_announced: 3,
        machines: [{ name: 'web1', url: 'http://127.0.0.1:9', key: KEY }],
      }),
    );
  });
  afterAll(async () => {
    await board?.stop();
    dir.cleanup();
  });

  it('remembers an announced machine, which goes down when it stops reporting and stays listed', async () => {
    const feed = await live(board.url);
    const answer = await report({
      name: 'lab3',
      location: 'http://lab3.example:8701',
      hostname: 'lab3',
      cpus: 8,
    });
    expect(answer).toMatchObject({ status: 200, json: { ok: true, actions: [] } });
    const board1 = (await http.call(`${board.url}/api/board`, { token: TOKEN })).json as {
      machines: Record<string, unknown>[];
    };
    expect(board1.machines.find((m) => m.name === 'lab3')).toMatchObject({
      origin: 'announced',
      state: 'up',
      location: 'http://lab3.example:8701',
      overview: { hostname: 'lab3', cpus: 8 },
    });
    // stale_after is 1 s: the machine turns red, and stays on the board.
    const down = await eventually(async () => {
      const v = (await http.call(`${board.url}/api/board`, { token: TOKEN })).json as {
        machines: Record<string, unknown>[];
      };
      const m = v.machines.find((x) => x.name === 'lab3');
      return m?.state === 'down' ? m : undefined;
    }, 'lab3 down');
    expect(down.error).toMatch(/^no report for \d+ s$/);
    // The live feed saw the board first, then lab3 change, and the journal entry.
    await eventually(
      async () => (feed.messages.some((m) => m.type === 'machine') ? true : undefined),
      'live machine',
    );
    expect(feed.messages[0]?.type).toBe('board');
    const changes = feed.messages
      .filter((m) => m.type === 'machine')
      .map((m) => m.machine as { name: string; state: string });
    expect(changes.some((m) => m.name === 'lab3')).toBe(true);
    expect(
      feed.messages.some((m) => m.type === 'journal' && (m.entry as Entry).outcome === 'announced'),
    ).toBe(true);
    feed.socket.close();
    expect((await journal())[0]).toMatchObject({
      who: 'registration',
      op: 'announce',
      target: 'lab3',
      outcome: 'announced',
    });
  });

  it('refuses a report naming a configured machine (409, journaled) and new names past the cap', async () => {
    expect((await report({ name: 'web1', location: 'http://x' })).status).toBe(409);
    expect((await journal())[0]).toMatchObject({
      op: 'report',
      target: 'web1',
      outcome: 'refused',
      status: 409,
    });
    expect((await report({ name: 'lab4', location: 'http://x' })).status).toBe(200);
    expect((await report({ name: 'lab5', location: 'http://x' })).status).toBe(200);
    const over = await report({ name: 'lab6', location: 'http://x' });
    expect(over.status).toBe(409);
    expect((over.json as { detail: string }).detail).toContain('3 announced machines');
  });

  it('queues an action for an unreachable announced machine and hands it over until its result arrives', async () => {
    const queued = await http.call(`${board.url}/api/do/lab3/backup/start`, {
      method: 'POST',
      token: TOKEN,
    });
    expect(queued.status).toBe(200);
    const q = queued.json as {
      queued: boolean;
      id: string;
      name: string;
      what: string;
      action: string;
    };
    expect(q).toMatchObject({ queued: true, name: 'lab3', what: 'backup', action: 'start' });

    const first = await report({ name: 'lab3', location: 'http://lab3.example:8701' });
    const second = await report({ name: 'lab3', location: 'http://lab3.example:8701' });
    for (const r of [first, second]) {
      expect((r.json as { actions: { id: string }[] }).actions.map((a) => a.id)).toEqual([q.id]);
    }
    const result = { what: 'backup', action: 'start', ok: true, exit_code: 0, output: 'ran' };
    const third = await report({
      name: 'lab3',
      location: 'http://lab3.example:8701',
      results: [{ id: q.id, status: 200, body: result }],
    });
    expect(third.json).toEqual({ ok: true, actions: [] });
    const entries = (await journal(4)).map((e) => `${e.op} ${e.target} ${e.outcome} ${e.status}`);
    expect(entries.slice(0, 3)).toEqual([
      'do lab3/backup/start done 200',
      'do lab3/backup/start delivered null',
      'do lab3/backup/start queued 200',
    ]);
  });

  it('DELETE forgets an announced machine, refuses configured and unknown ones', async () => {
    const feed = await live(board.url);
    expect(
      (await http.call(`${board.url}/api/machines/lab4`, { method: 'DELETE', token: TOKEN })).json,
    ).toMatchObject({
      ok: true,
      forgotten: true,
    });
    await eventually(
      async () =>
        feed.messages.some((m) => m.type === 'removed' && m.name === 'lab4') ? true : undefined,
      'removed message',
    );
    feed.socket.close();
    const configured = await http.call(`${board.url}/api/machines/web1`, {
      method: 'DELETE',
      token: TOKEN,
    });
    expect(configured.status).toBe(409);
    expect((configured.json as { detail: string }).detail).toContain('board.yaml');
    expect(
      (await http.call(`${board.url}/api/machines/lab4`, { method: 'DELETE', token: TOKEN }))
        .status,
    ).toBe(404);
    expect((await journal(3)).map((e) => `${e.op} ${e.target} ${e.outcome} ${e.status}`)).toEqual([
      'forget lab4 refused 404',
      'forget web1 refused 409',
      'forget lab4 forgotten 200',
    ]);
  });

  it('the live feed takes the token by query only when it is right', async () => {
    const bad = new WebSocket(
      `${board.url.replace('http', 'ws')}/api/live?token=wrong-token-0123456789`,
    );
    const status = await new Promise<number>((resolve) => {
      bad.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      bad.on('open', () => resolve(101));
    });
    expect(status).toBe(401);
    const plain = await http.call(`${board.url}/api/live`, { token: TOKEN });
    expect(plain.status).toBe(426);
  });

  it('never shows a token or key in a response or a log line', () => {
    expect(http.leaks([TOKEN, REGISTRATION, KEY], board.output)).toEqual([]);
  });

  // Every answer, message, log line and data file of this file's tests, searched for every secret.
  scanForSecretsAfterAll(() => ({ secrets: [TOKEN, REGISTRATION, KEY], dirs: [dir.path] }));
});
