import { readFileSync } from 'node:fs';
import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { announcerReport } from '../bench/fleet/overview.js';
import { type RunningProgram, startBoard } from '../harness/processes.js';
import { BOARD_KEY, REGISTRATION } from './helpers/agent-fixtures.js';
import { type FaultyAgent, httpAgent, overview } from './helpers/faulty-agents.js';
import { Recorder, writeBoardConfig } from './helpers/fleet.js';
import { tempDir } from './helpers/tmp.js';

const TOKEN = 'mcp-bounds-board-token-7d31c9a0e5'; // secret-scan: token
const MACHINES = Number(process.env.PANOPTES_MCP_MACHINES ?? 2000);
const PER_MACHINE = 3;
/** The announced fleet and one configured machine whose agent answers an action at length. */
const ALL = MACHINES + 1;
/** What the board documents (docs/api.md, "MCP"). */
const BATCH_MAX = 10;
const PAGE_ITEMS_MAX = 1000;
const PAGE_BYTES_MAX = 128 * 1024;
const CALL_BYTES_MAX = 512 * 1024;

interface Rpc {
  jsonrpc: '2.0';
  id: number | null;
  result?: { structuredContent?: Record<string, unknown>; isError?: boolean; content: unknown[] };
  error?: { code: number; message: string };
}

function rssMb(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(match?.[1]) / 1024;
}

/** Every announcing machine reports once, with its sessions, 32 at a time. */
async function announceAll(url: string): Promise<number> {
  const pool = new Pool(url, { connections: 32 });
  const newestAt = Date.now() - 60_000;
  let next = 0;
  let ok = 0;
  const worker = async () => {
    while (next < MACHINES) {
      const index = next;
      next += 1;
      const r = await pool.request({
        path: '/api/report',
        method: 'POST',
        headers: { authorization: `Bearer ${REGISTRATION}`, 'content-type': 'application/json' },
        body: announcerReport(index, 1, Date.now(), {
          sessions: { perMachine: PER_MACHINE, newestAt },
        }),
      });
      await r.body.text();
      if (r.statusCode === 200) ok += 1;
    }
  };
  await Promise.all(Array.from({ length: 32 }, worker));
  await pool.close();
  return ok;
}

/**
 * What one MCP request may cost the board: at most 10 messages in a batch, every list paged
 * with a cursor and bounded in items and bytes, every answer bounded in bytes; so 8 maximal
 * batches in parallel at a fleet of 2,000 announced machines leave its memory where it was.
 */
describe('MCP answers are bounded', () => {
  const dir = tempDir('panoptes-mcp-bounds-');
  const http = new Recorder();
  let board: RunningProgram;
  let talker: FaultyAgent;
  /** The board's RSS once the fleet has announced and the MCP code is loaded. */
  let settledMb = 0;

  const rpc = async (body: unknown): Promise<{ status: number; bytes: number; json: unknown }> => {
    const r = await fetch(`${board.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${TOKEN}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify(body),
    });
    const text = await r.text();
    return { status: r.status, bytes: Buffer.byteLength(text), json: JSON.parse(text) };
  };
  const call = (id: number, name: string, args: Record<string, unknown>) => ({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name, arguments: args },
  });
  const content = async (name: string, args: Record<string, unknown>) => {
    const { json } = await rpc(call(1, name, args));
    const result = (json as Rpc).result;
    expect(result?.isError ?? false, JSON.stringify(result?.content)).toBe(false);
    return result?.structuredContent as Record<string, unknown>;
  };
  /** Every page of a list tool, following next_cursor. */
  const walk = async (name: string, member: string, args: Record<string, unknown> = {}) => {
    const pages: unknown[][] = [];
    let cursor: unknown;
    do {
      const page = await content(name, {
        ...args,
        limit: 10_000,
        ...(cursor === undefined ? {} : { cursor }),
      });
      const items = page[member] as unknown[];
      expect(items.length).toBeGreaterThan(0);
      expect(items.length).toBeLessThanOrEqual(PAGE_ITEMS_MAX);
      expect(Buffer.byteLength(JSON.stringify(items))).toBeLessThanOrEqual(PAGE_BYTES_MAX + 2);
      pages.push(items);
      cursor = page.next_cursor;
    } while (cursor !== undefined);
    return pages;
  };
  const maximalBatch = (n = BATCH_MAX) =>
    Array.from({ length: n }, (_, i) => call(i + 1, 'list_machines', { limit: 10_000 }));

  beforeAll(async () => {
    // 900 KB of output: under the 1 MiB the board takes from a machine, over what MCP answers.
    talker = await httpAgent((req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(
        req.method === 'POST'
          ? JSON.stringify({ what: 'job', action: 'start', ok: true, output: 'o'.repeat(900_000) })
          : overview('talker'),
      );
    });
    board = await startBoard(
      writeBoardConfig(dir, 'board', {
        board_token: TOKEN,
        registration_token: REGISTRATION,
        max_announced: MACHINES + 100,
        history: false,
        machines: [{ name: 'talker', url: talker.url, key: BOARD_KEY }],
      }),
    );
    expect(await announceAll(board.url)).toBe(MACHINES);
    await rpc(call(1, 'list_machines', { limit: 1 }));
    // Settled: the first announcements' garbage collected.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    settledMb = rssMb(board.pid);
  }, 300_000);
  afterAll(async () => {
    await board?.stop();
    await talker?.close();
    dir.cleanup();
  });

  it('refuses a batch of more than 10 messages with a JSON-RPC error, and answers one of 10', async () => {
    const refused = await rpc(maximalBatch(BATCH_MAX + 1));
    expect(refused.status).toBe(400);
    expect(refused.json).toEqual({
      jsonrpc: '2.0',
      error: { code: -32600, message: 'Invalid Request: at most 10 messages in a batch, not 11' },
      id: null,
    });
    const taken = await rpc(maximalBatch());
    expect(taken.status).toBe(200);
    expect((taken.json as Rpc[]).map((r) => r.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it('list_machines: a page is capped, and its cursor walks every machine exactly once, by name', async () => {
    const first = await content('list_machines', { limit: 10_000 });
    expect(first.total).toBe(ALL);
    expect((first.machines as unknown[]).length).toBeLessThan(ALL);
    expect(first.next_cursor).toEqual(expect.any(String));
    const pages = await walk('list_machines', 'machines');
    expect(pages.length).toBeGreaterThan(1);
    const names = pages.flat().map((m) => (m as { name: string }).name);
    expect(names).toHaveLength(ALL);
    expect(new Set(names).size).toBe(ALL);
    expect(names).toEqual([...names].sort((a, b) => (a < b ? -1 : 1)));
    // A small limit pages too, and the last page has no cursor.
    const small = await content('list_machines', { limit: 3 });
    expect((small.machines as unknown[]).length).toBe(3);
    const next = await content('list_machines', { limit: 3, cursor: small.next_cursor });
    const both = [...(small.machines as unknown[]), ...(next.machines as unknown[])];
    expect(both.map((m) => (m as { name: string }).name)).toEqual(names.slice(0, 6));
  }, 120_000);

  it('list_sessions and read_journal: the cursor walks each list exactly once', async () => {
    const sessions = (await walk('list_sessions', 'sessions')).flat() as {
      machine: string;
      session: string;
    }[];
    expect(sessions).toHaveLength(MACHINES * PER_MACHINE);
    expect(new Set(sessions.map((s) => `${s.machine}/${s.session}`)).size).toBe(sessions.length);
    const open = (await walk('list_sessions', 'sessions', { state: 'open' })).flat();
    expect(open).toHaveLength((await content('list_sessions', { state: 'open' })).total as number);

    const served = await http.call(`${board.url}/api/journal?limit=10000`, { token: TOKEN });
    const all = (served.json as { entries: { id: number }[] }).entries;
    const entries = (await walk('read_journal', 'entries')).flat() as { id: number }[];
    expect(entries.map((e) => e.id)).toEqual(all.map((e) => e.id));

    const bad = await rpc(call(1, 'read_journal', { cursor: 'not-a-cursor' }));
    expect((bad.json as Rpc).result).toMatchObject({ isError: true });
    const wrongTool = await content('list_machines', { limit: 1 });
    const mixed = await rpc(call(1, 'read_journal', { cursor: wrongTool.next_cursor }));
    expect(JSON.stringify((mixed.json as Rpc).result?.content)).toContain(
      'cursor: not a next_cursor this tool gave',
    );
  }, 120_000);

  it('bounds every answer in bytes: a maximal batch is at most 10 × 512 KiB', async () => {
    const { status, bytes, json } = await rpc(maximalBatch());
    expect(status).toBe(200);
    expect(bytes).toBeLessThanOrEqual(BATCH_MAX * CALL_BYTES_MAX + 4096);
    for (const answer of json as Rpc[]) {
      expect(Buffer.byteLength(JSON.stringify(answer))).toBeLessThanOrEqual(CALL_BYTES_MAX + 100);
    }
  });

  it('answers a tool error 413 where one answer would pass 512 KiB (a machine talking at length)', async () => {
    const { json } = await rpc(
      call(1, 'do_action', { machine: 'talker', what: 'job', action: 'start' }),
    );
    const result = (json as Rpc).result;
    expect(result).toMatchObject({ isError: true, structuredContent: { status: 413 } });
    expect(JSON.stringify(result?.content)).toMatch(
      /413 Payload Too Large: The answer is \d+ bytes, more than the 524288 one call may answer/,
    );
    expect(Buffer.byteLength(JSON.stringify(json))).toBeLessThan(1024);
  });

  it("keeps the board's memory within 2× what it was under 8 maximal batches in parallel", async () => {
    const before = settledMb;
    let peak = rssMb(board.pid);
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssMb(board.pid));
    }, 20);
    try {
      for (let round = 0; round < 3; round += 1) {
        const answers = await Promise.all(Array.from({ length: 8 }, () => rpc(maximalBatch())));
        expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
      }
    } finally {
      clearInterval(sampler);
      peak = Math.max(peak, rssMb(board.pid));
      console.log(
        `MCP bounds: ${MACHINES} machines, RSS ${before.toFixed(0)} MB, peak ${peak.toFixed(0)} MB`,
      );
    }
    expect(peak).toBeLessThan(2 * before);
  }, 300_000);
});
