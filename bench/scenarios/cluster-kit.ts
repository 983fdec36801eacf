/** The cluster scenario's stand-in agents (their polls counted per board) and webhook receiver. */
import { createServer, type Server } from 'node:http';
import { overviewJson } from '../fleet/overview.js';

/** Stand-in agents on one server: each board polls its own URL prefix, so polls are counted per board. */
export class StandIns {
  readonly polls = new Map<string, Uint32Array>();
  readonly down = new Set<number>();
  readonly probe = new Map<number, number>();
  private server: Server | null = null;
  port = 0;

  constructor(readonly machines: number) {}

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const [, board = '', m = ''] = (req.url ?? '').split('/');
      const i = Number(m.slice(1));
      let counts = this.polls.get(board);
      if (counts === undefined) {
        counts = new Uint32Array(this.machines);
        this.polls.set(board, counts);
      }
      if (i >= 0 && i < this.machines) counts[i] = (counts[i] ?? 0) + 1;
      if (this.down.has(i)) {
        res.statusCode = 500;
        res.end();
        return;
      }
      res.setHeader('content-type', 'application/json');
      // The fleet simulator's overview (about 2 KB, new numbers at every answer); the lag probe
      // travels as its time.
      const probe = this.probe.get(i);
      res.end(overviewJson({ name: m, index: i }, counts[i] ?? 0, probe ?? Date.now()));
    });
    this.server.keepAliveTimeout = 65_000;
    await new Promise<void>((r) => this.server?.listen(0, '127.0.0.1', 4096, r));
    this.port = (this.server.address() as { port: number }).port;
  }

  reset(): void {
    this.polls.clear();
  }

  /** Polls per machine, summed over the boards given (all by default). */
  totals(boards?: readonly string[]): Uint32Array {
    const out = new Uint32Array(this.machines);
    for (const [board, counts] of this.polls) {
      if (boards !== undefined && !boards.includes(board)) continue;
      for (let i = 0; i < this.machines; i += 1) out[i] = (out[i] ?? 0) + (counts[i] ?? 0);
    }
    return out;
  }

  /** Machines polled by more than one board. */
  doubled(): number {
    let n = 0;
    for (let i = 0; i < this.machines; i += 1) {
      let boards = 0;
      for (const counts of this.polls.values()) if ((counts[i] ?? 0) > 0) boards += 1;
      if (boards > 1) n += 1;
    }
    return n;
  }

  close(): Promise<void> {
    this.server?.closeAllConnections();
    return new Promise((r) => this.server?.close(() => r()));
  }
}

export function ownedBy(agents: StandIns, board: string): number {
  return ownedByMany(agents, board, 1)[0] ?? 0;
}

/** Machines the board polled in the last counting window (up to `limit`). */
export function ownedByMany(agents: StandIns, board: string, limit: number): number[] {
  const counts = agents.polls.get(board) ?? new Uint32Array(0);
  const out: number[] = [];
  for (let i = 0; i < counts.length && out.length < limit; i += 1)
    if ((counts[i] ?? 0) > 0) out.push(i);
  return out;
}

/** A webhook receiver that counts events by machine and kind. */
export async function webhook(): Promise<{
  url: string;
  count(machine: string, event: string): number;
  close(): Promise<void>;
}> {
  const seen = new Map<string, number>();
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString();
    });
    req.on('end', () => {
      try {
        for (const e of (JSON.parse(body) as { events: { machine: string; event: string }[] })
          .events) {
          const key = `${e.machine} ${e.event}`;
          seen.set(key, (seen.get(key) ?? 0) + 1);
        }
      } catch {
        // Not an event message.
      }
      res.end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    count: (machine, event) => seen.get(`${machine} ${event}`) ?? 0,
    close: () => new Promise((r) => server.close(() => r())),
  };
}
