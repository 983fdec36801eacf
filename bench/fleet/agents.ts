import { createServer as createNetServer, type Server, type Socket } from 'node:net';
import { seeded } from '../../harness/seeded.js';
import { overviewJson } from './overview.js';
import {
  loopbackAddress,
  type MachineKind,
  machineName,
  type ServeAnswer,
  type ServeRequest,
  type SimMachine,
  type StatsAnswer,
} from './protocol.js';

/** The block of 127.0.0.0/8 the polled agents listen in: 127.10.x.y. */
const AGENT_BLOCK = 10;
const LISTEN_BATCH = 500;

interface Agent extends SimMachine {
  index: number;
  seq: number;
  delayMs: number;
  labels: boolean;
}

/**
 * N simulated agents, each on an address of its own (127.10.x.y, one port), so that each is a
 * separate origin for the board's HTTP client, as real machines are. Black holes accept and
 * never answer; refusing machines have no listener at all.
 *
 * The simulator shares the board's cores, as no real fleet does, so it answers as cheaply as
 * it can: HTTP/1.1 written straight onto each socket (keep-alive, Content-Length bodies), not
 * through node:http, which costs ~150 µs of CPU per answer against ~40 µs.
 */
export class SimulatedAgents {
  private readonly listeners: Server[] = [];
  private readonly sockets = new Set<Socket>();
  private readonly counts: StatsAnswer['polls'] = { ok: 0, slow: 0, 'black-hole': 0, refusing: 0 };
  private relays = 0;
  private unauthorised = 0;

  async serve(request: ServeRequest): Promise<ServeAnswer> {
    const random = seeded(request.seed);
    const kinds = assignKinds(request, random);
    const port = 20_000 + Math.floor(random() * 10_000);
    const agents: Agent[] = kinds.map((kind, index) => {
      const name = machineName('m', index);
      const address = loopbackAddress(AGENT_BLOCK, index);
      const [min, max] = request.slowMs;
      return {
        name,
        url: `http://${address}:${port}`,
        key: `bench-key-${name}-0123456789`,
        kind,
        index,
        seq: 0,
        delayMs: kind === 'slow' ? min + random() * (max - min) : 0,
        labels: request.labels === true,
      };
    });
    for (let start = 0; start < agents.length; start += LISTEN_BATCH) {
      const batch = agents.slice(start, start + LISTEN_BATCH);
      await Promise.all(batch.map((agent) => this.listen(agent, port)));
    }
    return {
      type: 'serve',
      machines: agents.map(({ name, url, key, kind }) => ({ name, url, key, kind })),
      listeners: this.listeners.length,
    };
  }

  stats(): StatsAnswer {
    return {
      type: 'stats',
      polls: { ...this.counts },
      relays: this.relays,
      unauthorised: this.unauthorised,
    };
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await Promise.all(
      this.listeners.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))),
    );
  }

  private async listen(agent: Agent, port: number): Promise<void> {
    if (agent.kind === 'refusing') return;
    const address = new URL(agent.url).hostname;
    const server = createNetServer((socket) => {
      socket.on('error', () => undefined);
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
      if (agent.kind === 'black-hole') {
        this.counts['black-hole'] += 1;
        socket.pause();
        return;
      }
      this.converse(agent, socket);
    });
    const listen = (on: number) =>
      new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen({ port: on, host: address, backlog: 511 }, () => {
          server.off('error', reject);
          resolve();
        });
      });
    // The shared port is taken on this address by someone else: any free port will do.
    await listen(port).catch(async () => {
      await listen(0);
      const bound = server.address();
      if (bound !== null && typeof bound === 'object')
        agent.url = `http://${address}:${bound.port}`;
    });
    this.listeners.push(server);
  }

  /** Reads requests off a kept-alive connection and answers each in turn. */
  private converse(agent: Agent, socket: Socket): void {
    // As the real agent (src/agent/app.ts AGENT_KEEP_ALIVE_MS): idle keep-alive connections
    // close after 65 s, longer than the sweep interval.
    socket.setTimeout(65_000, () => socket.destroy());
    socket.setNoDelay(true);
    let pending = '';
    socket.on('data', (chunk: Buffer) => {
      pending += chunk.toString('latin1');
      for (;;) {
        const end = pending.indexOf('\r\n\r\n');
        if (end < 0) {
          if (pending.length > HEAD_LIMIT) socket.destroy();
          return;
        }
        const head = parseHead(pending.slice(0, end));
        if (head === null) {
          socket.end(response(400, '{"detail":"Bad request"}'));
          return;
        }
        if (pending.length < end + 4 + head.length) return;
        pending = pending.slice(end + 4 + head.length);
        this.answer(agent, head, socket);
      }
    });
  }

  private answer(agent: Agent, head: RequestHead, socket: Socket): void {
    if (head.authorization !== `Bearer ${agent.key}`) {
      this.unauthorised += 1;
      socket.write(response(401, '{"detail":"Not authenticated"}'));
      return;
    }
    if (head.method === 'GET' && head.url === '/api/overview') {
      this.counts[agent.kind] += 1;
      agent.seq += 1;
      const reply = () => socket.write(response(200, overviewJson(agent, agent.seq, Date.now())));
      if (agent.delayMs > 0) setTimeout(reply, agent.delayMs);
      else reply();
      return;
    }
    const relay = /^\/api\/do\/([^/]+)\/(start|stop)$/.exec(head.url);
    if (head.method === 'POST' && relay !== null) {
      this.relays += 1;
      const body = {
        what: relay[1],
        action: relay[2],
        ok: true,
        exit_code: 0,
        output: `${relay[1]}: ${relay[2]} requested\n`,
      };
      socket.write(response(200, JSON.stringify(body)));
      return;
    }
    socket.write(response(404, '{"detail":"Not Found"}'));
  }
}

const HEAD_LIMIT = 16 * 1024;
const REASONS: Record<number, string> = {
  200: 'OK',
  400: 'Bad Request',
  401: 'Unauthorized',
  404: 'Not Found',
};

interface RequestHead {
  method: string;
  url: string;
  authorization: string | undefined;
  /** Content-Length of the body that follows (the board sends no chunked bodies). */
  length: number;
}

/** The request line and the two headers the simulated agent reads; null when malformed. */
function parseHead(text: string): RequestHead | null {
  const lines = text.split('\r\n');
  const [method, url, version] = (lines[0] ?? '').split(' ');
  if (method === undefined || url === undefined || version?.startsWith('HTTP/1.') !== true)
    return null;
  let authorization: string | undefined;
  let length = 0;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i] as string;
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (name === 'authorization') authorization = value;
    else if (name === 'content-length') length = Number(value);
    else if (name === 'transfer-encoding') return null;
  }
  if (!Number.isSafeInteger(length) || length < 0) return null;
  return { method, url, authorization, length };
}

/** A whole HTTP/1.1 answer with a JSON body, the connection kept alive. */
function response(status: number, body: string): string {
  return (
    `HTTP/1.1 ${status} ${REASONS[status]}\r\ncontent-type: application/json\r\n` +
    `content-length: ${Buffer.byteLength(body)}\r\nconnection: keep-alive\r\n` +
    `keep-alive: timeout=65\r\n\r\n${body}`
  );
}

/** Exactly round(share × N) machines of each failing kind, spread at random over the fleet. */
function assignKinds(request: ServeRequest, random: () => number): MachineKind[] {
  const n = request.machines;
  const kinds: MachineKind[] = [];
  const add = (kind: MachineKind, count: number) => {
    for (let i = 0; i < count && kinds.length < n; i++) kinds.push(kind);
  };
  add('black-hole', Math.round(n * request.blackHoleShare));
  add('refusing', Math.round(n * request.refusingShare));
  add('slow', Math.round(n * request.slowShare));
  add('ok', n - kinds.length);
  for (let i = kinds.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    const a = kinds[i] as MachineKind;
    kinds[i] = kinds[j] as MachineKind;
    kinds[j] = a;
  }
  return kinds;
}
