import { type ConnectionOptions, connect, type TLSSocket } from 'node:tls';
import { parseAnswer } from '../http-answer.js';
import { quantile } from '../stats.js';
import { announcerReport } from './overview.js';
import {
  ANNOUNCER_BLOCK,
  JOIN_GRACE_INTERVALS,
  loopbackAddress,
  SETTLE_INTERVALS,
  type TlsReportAnswer,
  type TlsReportRequest,
} from './protocol.js';

const TICK_MS = 5;

/** One simulated reporting agent: its connection, kept between reports as a real agent's is. */
interface Reporter {
  index: number;
  /** When it makes its first report (ms after the start); then every interval. */
  joinMs: number;
  seq: number;
  socket: TLSSocket | null;
  /** The report in flight, if any. */
  pending: { t0: number; chunks: Buffer[]; counted: boolean } | null;
  /** Whether a report of its was accepted: it has joined. */
  joined: boolean;
}

/**
 * Agents reporting over TLS every `intervalMs`, each on a connection of its own that it keeps
 * between reports (HTTP/1.1 keep-alive, written on the TLS socket as is: the generator must
 * not be the bottleneck). Agents join evenly over `rampMs` (each join is a handshake); what is
 * counted is the window of `measureMs` that starts `settleIntervals` (default SETTLE_INTERVALS)
 * intervals after the last join: reports,
 * their latency, and the handshakes made in it (a connection the server closed is opened again
 * at the next report). Open loop: a report due while the last is unanswered is skipped.
 *
 * "After the last join" is when the last agent's first report was accepted, not when the
 * schedule said: on 2 cores the generator's own handshakes can put it seconds behind its
 * schedule during the ramp, and a window that started on schedule would take in the backlog of
 * joins. It waits for the last join at most JOIN_GRACE_INTERVALS intervals past the planned
 * start; the answer says when it began.
 */
export async function reportOverTls(req: TlsReportRequest): Promise<TlsReportAnswer> {
  const board = new URL(req.board);
  const port = Number(board.port);
  const reporters: Reporter[] = Array.from({ length: req.machines }, (_, index) => ({
    index,
    joinMs: (index / req.machines) * req.rampMs,
    seq: 0,
    socket: null,
    pending: null,
    joined: false,
  }));
  // Each agent reports at the same phase of every interval: slots of TICK_MS over one interval.
  const slots: Reporter[][] = Array.from({ length: Math.ceil(req.intervalMs / TICK_MS) }, () => []);
  for (const r of reporters) {
    // Rounded up: its first report comes in the first interval, at or just after it joins.
    slots[Math.ceil((r.joinMs % req.intervalMs) / TICK_MS) % slots.length]?.push(r);
  }

  // Some intervals after the last join (at least one): the joins' handshakes (the generator's and
  // the server's CPU on 2 cores) are over, and every agent has reported on its kept connection.
  const settleIntervals = req.settleIntervals ?? SETTLE_INTERVALS;
  const plannedStart = req.rampMs + settleIntervals * req.intervalMs;
  let windowStart = Number.POSITIVE_INFINITY;
  let windowEnd = Number.POSITIVE_INFINITY;
  let joined = 0;
  let joinedMs = Number.NaN;
  /** The generator's lag behind its schedule in the window: the longest, ms. */
  let lagMs = 0;
  const startWindow = (at: number) => {
    windowStart = at;
    windowEnd = at + req.measureMs;
  };
  const statuses: Record<string, number> = {};
  const errors: Record<string, number> = {};
  const latencies: number[] = [];
  let sent = 0;
  let ok = 0;
  let failed = 0;
  let skipped = 0;
  let handshakes = 0;
  let handshakesAll = 0;
  let serverCloses = 0;
  const started = performance.now();
  const elapsed = () => performance.now() - started;
  const inWindow = (t: number) => t >= windowStart && t < windowEnd;

  const settle = (r: Reporter, status: string | null, error: string | null, good: boolean) => {
    const pending = r.pending;
    if (pending === null) return;
    r.pending = null;
    if (good && !r.joined) {
      r.joined = true;
      joined += 1;
      if (joined === reporters.length) {
        joinedMs = elapsed();
        startWindow(Math.max(plannedStart, joinedMs + settleIntervals * req.intervalMs));
      }
    }
    if (!pending.counted) return;
    latencies.push(performance.now() - pending.t0);
    if (status !== null) statuses[status] = (statuses[status] ?? 0) + 1;
    if (error !== null) errors[error] = (errors[error] ?? 0) + 1;
    if (good) ok += 1;
    else failed += 1;
  };

  const open = (r: Reporter): TLSSocket => {
    // tls.connect hands localAddress to net.connect; its type does not list it.
    const options: ConnectionOptions & { localAddress: string } = {
      host: board.hostname,
      port,
      localAddress: loopbackAddress(ANNOUNCER_BLOCK, r.index),
      ca: req.ca,
    };
    const socket = connect(options);
    socket.setNoDelay(true);
    // A connection opened in the window is one opened again (each agent joined before it).
    const reopened = inWindow(elapsed());
    socket.once('secureConnect', () => {
      handshakesAll += 1;
      if (reopened) handshakes += 1;
    });
    socket.on('data', (chunk: Buffer) => {
      const pending = r.pending;
      if (pending === null) return;
      pending.chunks.push(chunk);
      const answer = parseAnswer(
        pending.chunks.length === 1 ? chunk : Buffer.concat(pending.chunks),
      );
      if (answer === null) return;
      settle(
        r,
        String(answer.status),
        null,
        answer.status === 200 && answer.body.startsWith('{"ok":true'),
      );
    });
    socket.on('error', (e: NodeJS.ErrnoException) => settle(r, null, e.code ?? 'error', false));
    socket.on('close', () => {
      if (r.socket === socket) r.socket = null;
      if (r.pending !== null) settle(r, null, 'closed before the answer', false);
      else if (inWindow(elapsed())) serverCloses += 1;
    });
    return socket;
  };

  const post = (r: Reporter, now: number): void => {
    const counted = inWindow(now);
    if (r.pending !== null) {
      if (counted) skipped += 1;
      return;
    }
    r.seq += 1;
    const body = Buffer.from(announcerReport(r.index, r.seq, Date.now()));
    const head = Buffer.from(
      `POST /api/report HTTP/1.1\r\nhost: ${board.host}\r\nauthorization: Bearer ${req.token}\r\n` +
        `content-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n`,
    );
    if (r.socket === null || r.socket.destroyed) r.socket = open(r);
    r.pending = { t0: performance.now(), chunks: [], counted };
    if (counted) sent += 1;
    r.socket.write(Buffer.concat([head, body]));
  };

  let slot = 0;
  let lapStart = 0;
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      const now = elapsed();
      if (windowStart === Number.POSITIVE_INFINITY) {
        const latest = plannedStart + JOIN_GRACE_INTERVALS * req.intervalMs;
        if (now >= latest) startWindow(latest);
      }
      if (inWindow(now)) lagMs = Math.max(lagMs, now - (lapStart + slot * TICK_MS));
      // Every slot whose time has come, in order, wrapping at the end of each interval.
      while (lapStart + slot * TICK_MS <= now) {
        const at = lapStart + slot * TICK_MS;
        if (at >= windowEnd) break;
        for (const r of slots[slot] ?? []) if (r.joinMs <= at + TICK_MS) post(r, at);
        slot += 1;
        if (slot === slots.length) {
          slot = 0;
          lapStart += req.intervalMs;
        }
      }
      if (now >= windowEnd) {
        clearInterval(timer);
        resolve();
      }
    }, TICK_MS);
  });
  // The last reports of the window finish (bounded), then every connection is closed.
  const deadline = performance.now() + 10_000;
  while (reporters.some((r) => r.pending?.counted === true) && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  for (const r of reporters) {
    if (r.pending?.counted === true) settle(r, null, 'no answer in 10 s', false);
    r.socket?.destroy();
  }
  return {
    type: 'tls-report',
    sent,
    ok,
    failed,
    skipped,
    statuses,
    errors,
    handshakes,
    handshakesAll,
    serverCloses,
    windowMs: req.measureMs,
    plannedStartMs: plannedStart,
    windowStartMs: windowStart,
    joined,
    joinedMs,
    lagMs,
    latencyMs: {
      p50: quantile(latencies, 0.5),
      p99: quantile(latencies, 0.99),
      max: quantile(latencies, 1),
    },
  };
}
