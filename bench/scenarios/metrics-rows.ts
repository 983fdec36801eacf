import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Program, startBare } from '../processes.js';
import { bestOf, type WrkResult } from '../wrk.js';
import { type BenchContext, count } from './context.js';

/**
 * GET /metrics on the large board while it sweeps: the scrape's p99 beside a bare server
 * sending the same text, and GET /api/board p99 while Prometheus scrapes every 5 s beside the
 * same p99 without scrapes (`withoutScrapes`, measured just before).
 */
export async function metricsRows(
  ctx: BenchContext,
  board: Program,
  boardToken: string,
  n: number,
  withoutScrapes: WrkResult,
  p99DuringSweep: () => Promise<WrkResult>,
): Promise<void> {
  const { wrkRounds: rounds, wrkSeconds: seconds } = ctx.options;
  const auth = { authorization: `Bearer ${boardToken}` };
  const first = await fetch(`${board.url}/metrics`, { headers: auth });
  const text = await first.text();
  if (first.status !== 200 || !text.includes('panoptes_machine_up{')) {
    ctx.problems.push(`GET /metrics: status ${first.status}, no panoptes_machine_up series`);
  }
  const scrape = await bestOf(rounds, {
    url: `${board.url}/metrics`,
    connections: 1,
    durationS: seconds,
    headers: auth,
  });
  const file = join(ctx.tmp, 'metrics.txt');
  writeFileSync(file, text);
  const bare = await startBare(['--bytes', file]);
  let bareScrape: WrkResult;
  try {
    bareScrape = await bestOf(rounds, {
      url: `${bare.url}/metrics`,
      connections: 1,
      durationS: seconds,
    });
  } finally {
    await bare.stop();
  }
  ctx.rows.push({
    what: `GET /metrics p99 while sweeping ${count(n)} (${(text.length / 1e6).toFixed(1)} MB, wrk -c1, best of ${rounds})`,
    board: scrape.p99,
    unit: 'ms',
    baselineLabel: 'bare node:http, same text',
    baseline: bareScrape.p99,
    ratio: scrape.p99 / bareScrape.p99,
    goal: '< 50 ms',
    met: scrape.p99 < 50,
  });

  // Prometheus scraping every 5 s while GET /api/board is measured.
  let scraping = true;
  const scraper = (async () => {
    while (scraping) {
      await fetch(`${board.url}/metrics`, { headers: auth })
        .then((r) => r.text())
        .catch(() => undefined);
      for (let waited = 0; scraping && waited < 5000; waited += 100) {
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  })();
  let withScrapes: WrkResult;
  try {
    withScrapes = await p99DuringSweep();
  } finally {
    scraping = false;
    await scraper;
  }
  ctx.rows.push({
    what: `GET /api/board p99 while sweeping ${count(n)} and scraped every 5 s`,
    board: withScrapes.p99,
    unit: 'ms',
    baselineLabel: 'no scrapes (row above)',
    baseline: withoutScrapes.p99,
    ratio: withScrapes.p99 / withoutScrapes.p99,
    goal: 'unchanged (ratio ≤ 1.2)',
    met: withScrapes.p99 <= 1.2 * withoutScrapes.p99,
  });
}
