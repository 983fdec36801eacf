import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics } from 'node:v8';
import { isMainThread } from 'node:worker_threads';

/**
 * A probe loaded into the board's main thread from outside, for finding where its event loop
 * stalls and where its memory goes under a bench load (docs/performance-round3.md):
 *
 *   PANOPTES_PROBE_DIR=/tmp/probe NODE_OPTIONS="--import ./dist/bench/board-probe.js" \
 *     npm run bench -- --only tls
 *
 * NODE_OPTIONS reaches every node process the bench starts; only a board's main thread
 * (`dist/board/main.js`) is probed. It appends, per board process (its pid):
 *   PID.gap  "ms-since-start gap-ms": the event loop held over 25 ms (a 2-ms timer late);
 *   PID.gc   "ms-since-start kind duration-ms": collections over 4 ms (kind 1 scavenge,
 *            2 mark-compact, 4 incremental marking, 8 weak callbacks);
 *   PID.mem  one JSON line a second: RSS, V8 heap, external and array buffers, and each heap
 *            space's size, in MB.
 * The timer and the observer cost the board a little CPU: compare figures with and without.
 */
const dir = process.env.PANOPTES_PROBE_DIR;
if (dir !== undefined && isMainThread && process.argv.some((a) => a.endsWith('board/main.js'))) {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, String(process.pid));
  const t0 = Date.now();
  const since = (): number => Date.now() - t0;
  const mb = (bytes: number): number => Math.round(bytes / 1e6);
  setInterval(() => {
    const m = process.memoryUsage();
    const spaces = Object.fromEntries(
      getHeapSpaceStatistics().map((s) => [s.space_name, mb(s.space_size)]),
    );
    const line = {
      t: since(),
      rss: mb(m.rss),
      heap: mb(m.heapTotal),
      used: mb(m.heapUsed),
      external: mb(m.external),
      arrayBuffers: mb(m.arrayBuffers),
      spaces,
    };
    appendFileSync(`${file}.mem`, `${JSON.stringify(line)}\n`);
  }, 1000).unref();
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const kind = (e as { detail?: { kind?: number } }).detail?.kind ?? 0;
      if (e.duration > 4)
        appendFileSync(`${file}.gc`, `${since()} ${kind} ${e.duration.toFixed(1)}\n`);
    }
  }).observe({ entryTypes: ['gc'] });
  let last = performance.now();
  setInterval(() => {
    const now = performance.now();
    if (now - last > 25) appendFileSync(`${file}.gap`, `${since()} ${Math.round(now - last)}\n`);
    last = now;
  }, 2).unref();
}
