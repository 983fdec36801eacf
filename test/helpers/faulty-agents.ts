import {
  createServer as createHttpServer,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { createServer as createTcpServer, type Server, type Socket } from 'node:net';

/** A fake agent on 127.0.0.1 that misbehaves in one way. */
export interface FaultyAgent {
  url: string;
  /** How many requests (or connections, for TCP-level faults) it has seen. */
  hits(): number;
  close(): Promise<void>;
}

/** A small valid overview, as a real agent would send it. */
export function overview(name: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    name,
    hostname: name,
    platform: 'linux',
    arch: 'x64',
    uptime_s: 1,
    load: [0, 0, 0],
    cpus: 1,
    memory: { total: 1, free: 1, used: 0 },
    disks: [],
    services: [],
    sessions: [],
    version: '0.1.0',
    time: new Date().toISOString(),
    ...extra,
  });
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  return `http://127.0.0.1:${address.port}`;
}

/** An HTTP fake agent answering every request with `handle`. */
export async function httpAgent(
  handle: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<FaultyAgent> {
  let hits = 0;
  const sockets = new Set<Socket>();
  const server = createHttpServer((req, res) => {
    hits += 1;
    res.on('error', () => undefined);
    handle(req, res);
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => undefined);
  });
  const url = await listen(server);
  return {
    url,
    hits: () => hits,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A TCP-level fake agent: `handle` gets each raw connection. */
export async function tcpAgent(handle: (socket: Socket) => void): Promise<FaultyAgent> {
  let hits = 0;
  const sockets = new Set<Socket>();
  const server = createTcpServer((socket) => {
    hits += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    handle(socket);
  });
  const url = await listen(server);
  return {
    url,
    hits: () => hits,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Writes `total` bytes of `unit` to a response without ever holding them all. */
function stream(res: ServerResponse, total: number, unit: Buffer): void {
  let sent = 0;
  const more = () => {
    while (sent < total) {
      const chunk = unit.subarray(0, Math.min(unit.length, total - sent));
      sent += chunk.length;
      if (!res.write(chunk)) {
        res.once('drain', more);
        return;
      }
    }
    res.end();
  };
  res.on('close', () => {
    sent = total;
  });
  more();
}

const MB = 1024 * 1024;

/** The misbehaving agents of the fault test, by what they do wrong. */
export const faults = {
  /** Accepts the connection and never answers. */
  silent: () => tcpAgent(() => undefined),

  /** Answers one byte a second: the status line and headers trickle in. */
  trickle: () =>
    tcpAgent((socket) => {
      const body = overview('trickle');
      const text = `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
      dripEverySecond(socket, text);
    }),

  /** Sends headers at once, then the body one byte a second. */
  trickleBody: () =>
    httpAgent((_req, res) => {
      const body = overview('trickle-body');
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
      dripEverySecond(res, body);
    }),

  /** 100 MB of zeros, with its length announced. */
  hundredMbDeclared: () =>
    httpAgent((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': 100 * MB });
      stream(res, 100 * MB, Buffer.alloc(64 * 1024, 0x30));
    }),

  /** 100 MB of a JSON array, chunked: no length to refuse it by. */
  hundredMbChunked: () =>
    httpAgent((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('[');
      stream(res, 100 * MB, Buffer.from('0,'.repeat(32 * 1024)));
    }),

  /** A valid overview object of 5 MB (one long string member), chunked. */
  hugeOverview: () =>
    httpAgent((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const head = overview('huge').slice(0, -1);
      res.write(`${head},"padding":"`);
      res.end(`${'x'.repeat(5 * MB)}"}`);
    }),

  /** A valid overview just under the 1 MiB cap: taken, and the board stays bounded. */
  bigOverview: () =>
    httpAgent((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(overview('big', { padding: 'x'.repeat(1000 * 1024) }));
    }),

  /** An overview nested 50,000 levels deep (it parses; it does not serialise). */
  deepOverview: () =>
    httpAgent((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(overview('deep').replace(/}$/, `,"x":${'['.repeat(50_000)}${']'.repeat(50_000)}}`));
    }),

  /** 200 with a body that is not JSON. */
  invalidJson: () =>
    httpAgent((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"name": "broken", "cpus": 4,');
    }),

  /** 200 with JSON that is not an object. */
  notAnObject: () =>
    httpAgent((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('[1,2,3]');
    }),

  /** Redirects to itself, forever. */
  redirectLoop: () =>
    httpAgent((req, res) => {
      res.writeHead(302, { location: req.url ?? '/' });
      res.end();
    }),

  /** Starts the body and resets the connection in the middle of it. */
  resetMidBody: () =>
    tcpAgent((socket) => {
      socket.once('data', () => {
        socket.write(
          `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n{"name":"reset","pad":"${'r'.repeat(500)}`,
        );
        setTimeout(() => socket.resetAndDestroy(), 50);
      });
    }),
};

export type FaultKind = keyof typeof faults;

/** The resident memory of a process, in bytes (Linux /proc). */
export async function rssOf(pid: number): Promise<number> {
  const { readFile } = await import('node:fs/promises');
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = /VmRSS:\s+(\d+)\s+kB/.exec(status)?.[1];
  if (kb === undefined) throw new Error(`no VmRSS for ${pid}`);
  return Number(kb) * 1024;
}

/** Writes `text` to `out` one character a second, until it is all sent or `out` is gone. */
function dripEverySecond(
  out: {
    destroyed: boolean;
    write(chunk: string): unknown;
    on(event: 'close', fn: () => void): unknown;
  },
  text: string,
): void {
  let i = 0;
  const timer = setInterval(() => {
    if (out.destroyed || i >= text.length) {
      clearInterval(timer);
      return;
    }
    out.write(text[i] ?? '');
    i += 1;
  }, 1000);
  out.on('close', () => clearInterval(timer));
}
