import { readdirSync, readFileSync } from 'node:fs';
import { Client } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { type RunningProgram, startAgent, startBoard } from '../harness/processes.js';
import { rssOf } from './helpers/faulty-agents.js';
import { eventually, Recorder, writeAgentConfig, writeBoardConfig } from './helpers/fleet.js';
import { expectNoSecrets } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

const TOKEN = 'abuse-board-token-8c0e2a4c6e8a';
const REGISTRATION = 'abuse-registration-9d1f3b5d7f9b';
const AGENT_TOKEN = 'abuse-agent-token-0e2a4c6e8a0c';
const BOARD_KEY = 'abuse-agent-board-key-1f3b5d7f9b1d';
const SECRETS = [TOKEN, REGISTRATION, AGENT_TOKEN, BOARD_KEY];
const MB = 1024 * 1024;

interface Entry {
  op: string;
  target: string;
  outcome: string;
  detail: string;
}

/** A client whose connections come from one loopback address (all of 127/8 is local). */
function from(url: string, address: string): Client {
  return new Client(url, { localAddress: address, pipelining: 1 });
}

async function get(client: Client, path: string, token: string): Promise<number> {
  const r = await client.request({
    method: 'GET',
    path,
    headers: { authorization: `Bearer ${token}` },
  });
  await r.body.text();
  return r.statusCode;
}

describe('abuse: token guessing, slow live clients', () => {
  const dir = tempDir('panoptes-abuse-');
  const http = new Recorder();
  const received: string[] = [];
  let board: RunningProgram;
  let agent: RunningProgram;
  const journal = async (): Promise<Entry[]> =>
    (
      (await http.call(`${board.url}/api/journal?limit=10000`, { token: TOKEN })).json as {
        entries: Entry[];
      }
    ).entries;

  beforeAll(async () => {
    board = await startBoard(
      writeBoardConfig(dir, 'b', { board_token: TOKEN, registration_token: REGISTRATION }),
    );
    agent = await startAgent(
      writeAgentConfig(dir, 'a', {
        name: 'abused',
        token: AGENT_TOKEN,
        board_key: BOARD_KEY,
        data_dir: `${dir.path}/agent-data`,
      }),
    );
  });
  afterAll(async () => {
    await board?.stop();
    await agent?.stop();
    dir.cleanup();
  });

  it('wrong tokens are limited per address: a guessing address is blocked, its neighbours are not', async () => {
    for (const [target, path, good] of [
      [board, '/api/board', TOKEN],
      [agent, '/api/overview', AGENT_TOKEN],
    ] as const) {
      const guesser = from(target.url, '127.0.0.10');
      const neighbour = from(target.url, '127.0.0.11');
      const statuses: number[] = [];
      for (let i = 0; i < 2000; i += 1)
        statuses.push(await get(guesser, path, `abuse-guess-${i}-0123456789`));
      expect(statuses.slice(0, 20).every((s) => s === 401)).toBe(true);
      expect(statuses.slice(20).every((s) => s === 429)).toBe(true);
      // Blocked for the minute, even with the right token; the next address is not.
      expect(await get(guesser, path, good)).toBe(429);
      expect(await get(neighbour, path, good)).toBe(200);
      await guesser.close();
      await neighbour.close();
    }
    // The board journaled the first 20 by address, then nothing more for that address.
    const refused = (await journal()).filter((e) => e.op === 'auth' && e.target === '127.0.0.10');
    expect(refused).toHaveLength(20);
    expect(refused[0]?.detail).toMatch(/^wrong token: GET \/api\/board from 127\.0\.0\.10$/);
  });

  it('a guessing botnet (600 addresses) cannot flush the journal: what was done stays in it', async () => {
    // Something an operator did, which the journal must keep.
    await http.call(`${board.url}/api/report`, {
      method: 'POST',
      token: REGISTRATION,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'lab-kept', location: 'http://lab-kept.example' }),
    });
    const done = await http.call(`${board.url}/api/do/lab-kept/backup/start`, {
      method: 'POST',
      token: TOKEN,
    });
    expect(done.status).toBe(200);
    const id = (done.json as { id: string }).id;
    // 600 addresses x 20 wrong tokens: each address stays under its own limit.
    const addresses = Array.from(
      { length: 600 },
      (_, i) => `127.0.${2 + Math.floor(i / 250)}.${1 + (i % 250)}`,
    );
    let attempts = 0;
    for (let start = 0; start < addresses.length; start += 50) {
      await Promise.all(
        addresses.slice(start, start + 50).map(async (address) => {
          const client = from(board.url, address);
          for (let i = 0; i < 20; i += 1) {
            expect(await get(client, '/api/board', `botnet-guess-${address}-${i}`)).toBe(401);
            attempts += 1;
          }
          await client.close();
        }),
      );
    }
    expect(attempts).toBe(12_000);
    const entries = await journal();
    expect(entries.some((e) => e.detail === `queued as ${id}: the board holds no key for it`)).toBe(
      true,
    );
    expect(entries.some((e) => e.op === 'announce' && e.target === 'lab-kept')).toBe(true);
    // Refusals are journaled one by one up to the minute's budget, then counted: the count is
    // journaled when the minute is over (board.test.ts checks that part with a manual clock).
    const auth = entries.filter((e) => e.op === 'auth');
    expect(auth.length).toBeLessThanOrEqual(20 + 100 + 1);
    const markers = auth.filter((e) =>
      e.detail.includes('more are counted, not journaled one by one'),
    );
    expect(markers).toHaveLength(1);
    console.log(
      `abuse: ${attempts} wrong tokens from 600 addresses -> ${auth.length} journal entries`,
    );
  }, 120_000);

  it('no presented token is ever journaled, logged or written to disk', () => {
    const texts = [
      // The store's files (state.db and its WAL hold the journal), read as bytes.
      ...readdirSync(`${dir.path}/b/data`).map((f) =>
        readFileSync(`${dir.path}/b/data/${f}`, 'latin1'),
      ),
      ...board.output,
      ...agent.output,
    ].join('\n');
    expect(texts).not.toMatch(/abuse-guess-|botnet-guess-/);
  });

  it('a live client that stops reading is dropped; memory stays bounded; others keep receiving', async () => {
    const url = `${board.url.replace('http', 'ws')}/api/live?token=${TOKEN}`;
    const slow = new WebSocket(url);
    const fast = new WebSocket(url);
    let fastMessages = 0;
    fast.on('message', (m) => {
      fastMessages += 1;
      if (fastMessages < 5) received.push(String(m).slice(0, 2000));
    });
    await Promise.all(
      [slow, fast].map(
        (s) =>
          new Promise((resolve, reject) => {
            s.once('open', resolve);
            s.once('error', reject);
          }),
      ),
    );
    // The slow one stops reading: the board's unsent bytes for it grow.
    const raw = (slow as unknown as { _socket: { pause(): void } })._socket;
    raw.pause();
    const slowClosed = new Promise<void>((resolve) => slow.once('close', () => resolve()));
    const baseRss = await rssOf(board.pid);
    let maxRss = baseRss;
    // Traffic: 20 machines reporting 40 KiB overviews as fast as they can.
    const pad = 'x'.repeat(40 * 1024);
    let stop = false;
    const reporters = Array.from({ length: 20 }, async (_, m) => {
      const client = from(board.url, '127.0.0.1');
      for (let i = 0; !stop; i += 1) {
        const r = await client.request({
          method: 'POST',
          path: '/api/report',
          headers: { authorization: `Bearer ${REGISTRATION}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name: `busy-${m}`, location: 'http://busy.example', pad, i }),
        });
        await r.body.text();
      }
      await client.close();
    });
    const dropped = eventually(
      async () =>
        board.output.some((l) => l.includes('live client too slow; dropped')) ? true : undefined,
      'the slow client dropped',
      60_000,
    );
    const sampling = (async () => {
      while (!stop) {
        maxRss = Math.max(maxRss, await rssOf(board.pid));
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    await dropped;
    const before = fastMessages;
    await new Promise((r) => setTimeout(r, 300));
    stop = true;
    await Promise.all([...reporters, sampling]);
    // Once it reads again it finds the connection closed.
    (slow as unknown as { _socket: { resume(): void } })._socket.resume();
    await slowClosed;
    expect(fastMessages).toBeGreaterThan(before);
    expect(fast.readyState).toBe(WebSocket.OPEN);
    fast.close();
    // Generous: the 4 MiB a slow client may hold, a few times over, never unbounded.
    expect(maxRss - baseRss).toBeLessThan(150 * MB);
    console.log(
      `abuse: slow live client dropped; board RSS +${Math.round((maxRss - baseRss) / MB)} MB`,
    );
  }, 90_000);

  it('leaves no secret anywhere', () => {
    expectNoSecrets({ secrets: SECRETS, recorders: [http], texts: received, dirs: [dir.path] });
  });
});
