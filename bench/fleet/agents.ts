import {
  createServer as createHttpServer,
  type Server as HttpServer,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { createServer as createNetServer, type Server, type Socket } from 'node:net';
import { seeded } from '../stats.js';
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
}

/**
 * N simulated agents, each on an address of its own (127.10.x.y, one port), so that each is a
 * separate origin for the board's HTTP client, as real machines are. One HTTP server answers
 * for all of them (each listening socket hands its connections over); black holes accept and
 * never answer; refusing machines have no listener at all.
 */
export class SimulatedAgents {
  private readonly listeners: Server[] = [];
  private readonly holes = new Set<Socket>();
  private readonly byAddress = new Map<string, Agent>();
  private readonly http: HttpServer;
  private readonly counts: StatsAnswer['polls'] = { ok: 0, slow: 0, 'black-hole': 0, refusing: 0 };
  private relays = 0;
  private unauthorised = 0;

  constructor() {
    this.http = createHttpServer((req, res) => this.answer(req, res));
    // As the real agent (src/agent/app.ts AGENT_KEEP_ALIVE_MS): idle keep-alive connections
    // close after 65 s, longer than the sweep interval.
    this.http.keepAliveTimeout = 65_000;
  }

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
    for (const socket of this.holes) socket.destroy();
    this.http.closeAllConnections();
    await Promise.all(
      this.listeners.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))),
    );
  }

  private async listen(agent: Agent, port: number): Promise<void> {
    if (agent.kind === 'refusing') return;
    const address = new URL(agent.url).hostname;
    this.byAddress.set(address, agent);
    const server = createNetServer((socket) => {
      socket.on('error', () => undefined);
      if (agent.kind === 'black-hole') {
        this.counts['black-hole'] += 1;
        this.holes.add(socket);
        socket.on('close', () => this.holes.delete(socket));
        socket.pause();
        return;
      }
      this.http.emit('connection', socket);
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

  private answer(req: IncomingMessage, res: ServerResponse): void {
    const agent = this.byAddress.get(req.socket.localAddress ?? '');
    if (agent === undefined) {
      send(res, 404, '{"detail":"Not Found"}');
      return;
    }
    if (req.headers.authorization !== `Bearer ${agent.key}`) {
      this.unauthorised += 1;
      send(res, 401, '{"detail":"Not authenticated"}');
      return;
    }
    const url = req.url ?? '/';
    if (req.method === 'GET' && url === '/api/overview') {
      this.counts[agent.kind] += 1;
      agent.seq += 1;
      const reply = () => send(res, 200, overviewJson(agent, agent.seq, Date.now()));
      if (agent.delayMs > 0) setTimeout(reply, agent.delayMs);
      else reply();
      return;
    }
    const relay = /^\/api\/do\/([^/]+)\/(start|stop)$/.exec(url);
    if (req.method === 'POST' && relay !== null) {
      this.relays += 1;
      req.resume();
      const body = {
        what: relay[1],
        action: relay[2],
        ok: true,
        exit_code: 0,
        output: `${relay[1]}: ${relay[2]} requested\n`,
      };
      send(res, 200, JSON.stringify(body));
      return;
    }
    send(res, 404, '{"detail":"Not Found"}');
  }
}

function send(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
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
