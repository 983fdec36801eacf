import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { parseAnswer } from './http-answer.js';

/**
 * The baseline of the sweep rows: a bare client that does the least a sweep needs, on this
 * machine, against the same simulated fleet. Each machine is polled once per sweep over a
 * kept-alive socket (HTTP/1.1 written and read by hand, the body JSON.parse-d), each poll with
 * its own time-out, in the board's two lanes (machines silent last time, or never heard, go
 * 8 × `concurrency` at a time; the others `concurrency` at a time; src/board/domain/sweep.ts).
 * A separate process, like the board; it prints one line of JSON (the sweeps' times and how
 * many machines answered in each) and exits.
 *   --machines FILE   JSON list of { name, url, key }
 *   --sweeps K        warm sweeps after the cold one
 *   --timeout-ms T    a poll's time-out (the board's poll_timeout)
 *   --concurrency C   the board's sweep_concurrency
 *   --client net|undici
 *                     net (the default): HTTP by hand on node:net sockets, the least there is.
 *                     undici: the same polls through undici's dispatch API, dispatcher set up
 *                     as the board's poller sets up its own (src/board/polling/agent-client.ts:
 *                     an Agent with one connection per origin, one shared connector) and the
 *                     least handler: what undici alone costs a sweep, with no board around it.
 */
interface Target {
  name: string;
  url: string;
  key: string;
}

const WIDE_LANE_FACTOR = 8;
/** Its peak RSS (sampled as the board's is, every 250 ms): what holding the fleet costs bare. */
let peakRss = process.memoryUsage.rss();
const rssTimer = setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage.rss());
}, 250);
const args = process.argv.slice(2);
const arg = (name: string): string => {
  const at = args.indexOf(name);
  const value = at < 0 ? undefined : args[at + 1];
  if (value === undefined) throw new Error(`bare-sweep: ${name} is missing`);
  return value;
};
/** A machine with what its polls send worked out once: where to connect, and the request. */
interface Polled extends Target {
  hostname: string;
  port: number;
  origin: string;
  request: string;
}
const machines = (JSON.parse(readFileSync(arg('--machines'), 'utf8')) as Target[]).map(
  (target): Polled => {
    const { hostname, port, host, origin } = new URL(target.url);
    const request =
      `GET /api/overview HTTP/1.1\r\nhost: ${host}\r\naccept: application/json\r\n` +
      `authorization: Bearer ${target.key}\r\n\r\n`;
    return { ...target, hostname, port: Number(port), origin, request };
  },
);
const sweeps = Number(arg('--sweeps'));
const timeoutMs = Number(arg('--timeout-ms'));
const concurrency = Number(arg('--concurrency'));
const clientAt = args.indexOf('--client');
const client = clientAt < 0 ? 'net' : args[clientAt + 1];
if (client !== 'net' && client !== 'undici') throw new Error(`bare-sweep: --client ${client}?`);

const sockets = new Map<string, Socket>();
const silent = new Set<string>();
const heard = new Set<string>();
let answered = 0;

/** One poll: true when a whole 2xx answer came and parsed as JSON. */
function pollNet(target: Polled): Promise<boolean> {
  return new Promise((resolve) => {
    let socket = sockets.get(target.name);
    const chunks: Buffer[] = [];
    let done = false;
    const finish = (ok: boolean): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      current.off('data', onData).off('error', onEnd).off('close', onEnd);
      if (!ok) {
        current.destroy();
        sockets.delete(target.name);
      }
      resolve(ok);
    };
    const onData = (chunk: Buffer): void => {
      chunks.push(chunk);
      const answer = parseAnswer(Buffer.concat(chunks));
      if (answer === null) return;
      try {
        JSON.parse(answer.body);
        finish(answer.status >= 200 && answer.status < 300);
      } catch {
        finish(false);
      }
    };
    const onEnd = (): void => finish(false);
    const timer = setTimeout(onEnd, timeoutMs);
    if (socket === undefined || socket.destroyed) {
      socket = connect({ host: target.hostname, port: target.port });
      socket.setNoDelay(true);
      sockets.set(target.name, socket);
    }
    const current = socket;
    current.on('error', onEnd).on('close', onEnd).on('data', onData);
    current.write(target.request);
  });
}

// undici is loaded only for its own client: the net client's RSS is the least a sweep needs.
const undici = client === 'undici' ? await import('undici') : null;
const agent = undici
  ? new undici.Agent({
      pipelining: 1,
      keepAliveTimeout: 30_000,
      keepAliveMaxTimeout: 60_000,
      connections: 1,
      connect: undici.buildConnector({ timeout: Math.min(timeoutMs, 10_000) }),
    })
  : null;

/** One poll through undici: true when a whole 2xx answer came and parsed as JSON. */
function pollUndici(target: Polled): Promise<boolean> {
  return new Promise((resolve) => {
    let controller: { abort(reason: Error): void } | null = null;
    let done = false;
    let status = 0;
    const chunks: Buffer[] = [];
    const finish = (ok: boolean): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(ok);
    };
    const expire = new Error('time-out');
    const timer = setTimeout(() => {
      controller?.abort(expire);
      finish(false);
    }, timeoutMs);
    agent?.dispatch(
      {
        origin: target.origin,
        path: '/api/overview',
        method: 'GET',
        headers: { accept: 'application/json', authorization: `Bearer ${target.key}` },
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      },
      {
        onRequestStart(c) {
          controller = c;
          if (done) c.abort(expire);
        },
        onResponseStart(_c, code) {
          status = code;
        },
        onResponseData(_c, chunk) {
          chunks.push(chunk);
        },
        onResponseEnd() {
          if (done) return;
          try {
            JSON.parse(Buffer.concat(chunks).toString('utf8'));
            finish(status >= 200 && status < 300);
          } catch {
            finish(false);
          }
        },
        onResponseError() {
          finish(false);
        },
      },
    );
  });
}

const poll = client === 'net' ? pollNet : pollUndici;

async function lane(list: Polled[], width: number): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < list.length) {
      const target = list[next] as Polled;
      next += 1;
      const began = performance.now();
      const ok = await poll(target);
      if (ok) {
        heard.add(target.name);
        answered += 1;
      }
      if (!ok && performance.now() - began >= timeoutMs * 0.9) silent.add(target.name);
      else silent.delete(target.name);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, list.length) }, worker));
}

const times: number[] = [];
const answers: number[] = [];
for (let i = 0; i <= sweeps; i += 1) {
  const began = performance.now();
  answered = 0;
  const unheard = (m: Polled) => silent.has(m.name) || !heard.has(m.name);
  await Promise.all([
    lane(machines.filter(unheard), concurrency * WIDE_LANE_FACTOR),
    lane(
      machines.filter((m) => !unheard(m)),
      concurrency,
    ),
  ]);
  times.push(Math.round(performance.now() - began));
  answers.push(answered);
}
for (const socket of sockets.values()) socket.destroy();
await agent?.destroy();
clearInterval(rssTimer);
process.stdout.write(
  `${JSON.stringify({ cold: times[0], warm: times.slice(1), answered: answers, peakRssMb: peakRss / 1048576 })}\n`,
);
process.exit(0);
