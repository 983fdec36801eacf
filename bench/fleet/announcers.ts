import { connect } from 'node:net';
import { parseAnswer } from '../http-answer.js';
import { quantile } from '../stats.js';
import { announcerReport } from './overview.js';
import {
  ANNOUNCER_BLOCK,
  type AnnounceAnswer,
  type AnnounceRequest,
  loopbackAddress,
} from './protocol.js';

const TICK_MS = 5;

/**
 * Announcing machines posting reports at a fixed rate (open loop: a slow board does not slow
 * the offered rate; reports beyond `maxInFlight` waiting are counted as skipped). Each report
 * is a new connection from the machine's own loopback address, as a real agent reporting every
 * 5–10 s makes when the board (or a proxy in front of it) closes idle connections sooner.
 */
export async function announce(req: AnnounceRequest): Promise<AnnounceAnswer> {
  const board = new URL(req.board);
  const statuses: Record<string, number> = {};
  const errors: Record<string, number> = {};
  const latencies: number[] = [];
  const seqs = new Uint32Array(req.machines);
  let offered = 0;
  let sent = 0;
  let ok = 0;
  let failed = 0;
  let skipped = 0;
  let inFlight = 0;
  let next = 0;
  const started = performance.now();

  const post = (index: number): void => {
    const seq = (seqs[index] ?? 0) + 1;
    seqs[index] = seq;
    const source = loopbackAddress(ANNOUNCER_BLOCK, index);
    const body = announcerReport(index, seq, Date.now());
    const t0 = performance.now();
    inFlight += 1;
    sent += 1;
    let settled = false;
    const settle = (status: string | null, error: string | null, good: boolean) => {
      if (settled) return;
      settled = true;
      inFlight -= 1;
      latencies.push(performance.now() - t0);
      if (status !== null) statuses[status] = (statuses[status] ?? 0) + 1;
      if (error !== null) errors[error] = (errors[error] ?? 0) + 1;
      if (good) ok += 1;
      else failed += 1;
    };
    // The request is written on the socket as is and the answer read from it: Node's http client
    // costs ~3× the CPU per new connection, enough to make the generator the bottleneck at
    // 3,000/s on 2 cores.
    const bodyBytes = Buffer.from(body);
    const head = Buffer.from(
      `POST /api/report HTTP/1.1\r\nhost: ${board.host}\r\nauthorization: Bearer ${req.token}\r\n` +
        `content-type: application/json\r\ncontent-length: ${bodyBytes.length}\r\n` +
        'connection: close\r\n\r\n',
    );
    const socket = connect({
      host: board.hostname,
      port: Number(board.port),
      localAddress: source,
    });
    socket.setTimeout(10_000, () =>
      socket.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })),
    );
    socket.on('connect', () => socket.end(Buffer.concat([head, bodyBytes])));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      const answer = parseAnswer(Buffer.concat(chunks));
      if (answer === null) return;
      settle(
        String(answer.status),
        null,
        answer.status === 200 && answer.body.startsWith('{"ok":true'),
      );
      socket.destroy();
    });
    socket.on('error', (e: NodeJS.ErrnoException) => settle(null, e.code ?? 'error', false));
    socket.on('close', () => settle(null, 'closed before the answer', false));
  };

  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      const elapsed = performance.now() - started;
      const due = Math.min(
        Math.floor((req.rate * Math.min(elapsed, req.durationMs)) / 1000),
        Math.round((req.rate * req.durationMs) / 1000),
      );
      while (offered < due) {
        offered += 1;
        if (inFlight >= req.maxInFlight) {
          skipped += 1;
          continue;
        }
        post(next);
        next = (next + 1) % req.machines;
      }
      if (elapsed >= req.durationMs) {
        clearInterval(timer);
        resolve();
      }
    }, TICK_MS);
  });
  const elapsedMs = performance.now() - started;
  // Let the last reports finish (bounded: each has a 10 s time-out).
  const deadline = performance.now() + 11_000;
  while (inFlight > 0 && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return {
    type: 'announce',
    offered,
    sent,
    ok,
    failed,
    skipped,
    statuses,
    errors,
    elapsedMs,
    latencyMs: {
      p50: quantile(latencies, 0.5),
      p99: quantile(latencies, 0.99),
      max: quantile(latencies, 1),
    },
  };
}
