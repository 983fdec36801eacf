import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Pool } from 'undici';
import { announcerReport, type ReportExtras } from '../fleet/overview.js';
import { startBare } from '../processes.js';
import { quantile } from '../stats.js';
import { best, type WrkResult, wrk } from '../wrk.js';
import { type BenchContext, count, type RssSampler, withPeakRss } from './context.js';

/** What a closed loop of first announcements measured. */
export interface AnnounceRun {
  elapsedMs: number;
  ok: number;
  failed: number;
  p99: number;
}

/**
 * The first announcement of `machines` new names, as fast as the server answers: a closed loop
 * of `concurrency` requests in flight over keep-alive connections, each name once, in order.
 * The same names and bodies as the fleet's announcers (so the later phases find them known),
 * with `extras` in each (the inbox scenario's fixed sessions, DESIGN.md 11's fields).
 */
export async function firstAnnounce(
  url: string,
  token: string,
  machines: number,
  concurrency = 64,
  extras: ReportExtras = {},
): Promise<AnnounceRun> {
  const pool = new Pool(url, { connections: concurrency, pipelining: 1 });
  const latencies: number[] = [];
  let next = 0;
  let ok = 0;
  let failed = 0;
  const started = performance.now();
  const worker = async (): Promise<void> => {
    while (next < machines) {
      const index = next;
      next += 1;
      const body = announcerReport(index, 1, Date.now(), extras);
      const t0 = performance.now();
      try {
        const r = await pool.request({
          path: '/api/report',
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body,
          headersTimeout: 30_000,
          bodyTimeout: 30_000,
        });
        await r.body.text();
        if (r.statusCode === 200) ok += 1;
        else failed += 1;
      } catch {
        failed += 1;
      }
      latencies.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsedMs = performance.now() - started;
  await pool.close();
  return { elapsedMs, ok, failed, p99: quantile(latencies, 0.99) };
}

/**
 * GET /api/board p99 (wrk -c2) with no report coming in, over one run long enough to take in
 * the ends of several of the board's sweeps (where its work comes in bursts), beside a bare
 * server sending the same bytes for as long. `settled`: measured once the board is done with
 * what the announcements before left it (the row with a goal); else right after them (no goal).
 */
export async function getWithoutFlood(
  ctx: BenchContext,
  board: { url: string },
  boardToken: string,
  announced: number,
  settled: boolean,
): Promise<void> {
  const durationS = ctx.options.wrkRounds * ctx.options.wrkSeconds;
  const view = await fetch(`${board.url}/api/board`, {
    headers: { authorization: `Bearer ${boardToken}` },
  });
  const viewBytes = Buffer.from(await view.arrayBuffer());
  const onBoard = await wrk({
    url: `${board.url}/api/board`,
    connections: 2,
    durationS,
    headers: { authorization: `Bearer ${boardToken}` },
  });
  const file = join(ctx.tmp, 'quiet-view.json');
  writeFileSync(file, viewBytes);
  const bare = await startBare(['--bytes', file]);
  let onBare: WrkResult;
  try {
    onBare = await wrk({ url: `${bare.url}/api/board`, connections: 2, durationS });
  } finally {
    await bare.stop();
  }
  if (onBoard.errors > 0) ctx.problems.push(`GET without flood: ${onBoard.errors} errors`);
  ctx.rows.push({
    what: `GET /api/board p99, ${count(announced)} announced, no reports${settled ? '' : ', right after they first announced'} (${(viewBytes.length / 1e6).toFixed(1)} MB; wrk -c2, one run of ${durationS} s; p50 ${onBoard.p50.toFixed(1)} ms, bare ${onBare.p50.toFixed(1)} ms)`,
    board: onBoard.p99,
    unit: 'ms',
    baselineLabel: 'bare node:http, same bytes',
    baseline: onBare.p99,
    ratio: onBoard.p99 / onBare.p99,
    goal: settled ? '≤ 1.5 × bare' : '',
    met: settled ? onBoard.p99 <= 1.5 * onBare.p99 : null,
  });
}

/**
 * GET /api/board p99 (wrk -c2) while wrk floods the server with reports (-c32), in rounds;
 * `viewBytes` is what the bare side serves while the bare report server takes the same flood.
 * The board's RSS counts as phase 'get' of `sampler`; the bare server's peak is returned.
 */
export async function getDuringFlood(
  ctx: BenchContext,
  board: { url: string },
  boardToken: string,
  script: string,
  viewBytes: Buffer,
  sampler: RssSampler,
): Promise<{ barePeakMb: number }> {
  const { wrkRounds: rounds, wrkSeconds: seconds } = ctx.options;
  const auth = { authorization: `Bearer ${boardToken}` };
  const measure = async (getUrl: string, reportUrl: string, headers: Record<string, string>) => {
    const results: WrkResult[] = [];
    for (let i = 0; i < rounds; i++) {
      const [get] = await Promise.all([
        wrk({ url: getUrl, connections: 2, durationS: seconds, headers }),
        wrk({ url: reportUrl, connections: 32, durationS: seconds, script }),
      ]);
      results.push(get);
    }
    return best(results);
  };
  sampler.phase('get');
  const onBoard = await measure(`${board.url}/api/board`, board.url, auth);
  sampler.phase(null);
  const file = join(ctx.tmp, 'flood-view.json');
  writeFileSync(file, viewBytes);
  // One bare process serves both, as the board does: one event loop for the GETs and the flood.
  const bare = await startBare(['--both', file]);
  let onBare: WrkResult;
  let barePeakMb: number;
  try {
    const run = await withPeakRss(bare.pid, () => measure(`${bare.url}/api/board`, bare.url, {}));
    onBare = run.result;
    barePeakMb = run.peakMb;
  } finally {
    await bare.stop();
  }
  ctx.rows.push({
    what: `GET /api/board p99 during a report flood (${(viewBytes.length / 1e6).toFixed(1)} MB view; wrk -c2 beside wrk -c32 of reports, best of ${rounds})`,
    board: onBoard.p99,
    unit: 'ms',
    baselineLabel: 'bare node:http, same bytes and flood',
    baseline: onBare.p99,
    ratio: onBoard.p99 / onBare.p99,
    goal: '≤ 1.5 × bare',
    met: onBoard.p99 <= 1.5 * onBare.p99,
  });
  return { barePeakMb };
}
