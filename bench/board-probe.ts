import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { join } from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
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
 *   PID.gc   "ms-since-start kind duration-ms": collections over 4 ms (node's
 *            NODE_PERFORMANCE_GC_* kinds: 1 scavenge, 4 mark-compact (major), 8 incremental
 *            marking, 16 weak callbacks; until round 3's seventeenth pass this said 2, 4, 8);
 *   PID.mem  one JSON line a second: RSS, V8 heap, external and array buffers, and each heap
 *            space's size, in MB.
 * With PANOPTES_PROBE_BARE=1 the bare servers (bench/bare.js) are probed too, for comparison;
 * with PANOPTES_PROBE_SIM=1 the simulators and load generators (bench/fleet/sim.js).
 * PANOPTES_PROBE_V8_FLAGS (e.g. "--trace-gc-nvp --trace-pretenuring") sets V8 flags at start;
 * V8's traces go to the board's output, which the bench then keeps in PID.out (processes.ts).
 * With PANOPTES_PROBE_SURVIVORS=FROM,TO (seconds since start) V8's sampling heap profiler runs
 * from FROM to TO, keeping only objects that outlived a scavenge (whether a mark-compact freed
 * them later or not; a scavenge is forced at TO): PID.heapprofile, where what the scavenges copy and promote is allocated
 * (summed by bench/survivors.ts). A caveat (round 3's tenth pass; my reading, not checked): a
 * mark-compact in the window also frees the young generation, which V8 would count as collected
 * by a major GC, so young garbage no scavenge saw may be in the profile too: prefer windows with
 * few mark-compacts (PID.gc, kind 4). With PANOPTES_PROBE_ALLOCATIONS=1 as well, objects a scavenge
 * collected are kept too: the profile is then of everything allocated in the window, garbage
 * included (where the scavenges' frequency comes from; round 3's eighteenth pass).
 * The timer and the observer cost the board a little CPU: compare figures with and without.
 */
const dir = process.env.PANOPTES_PROBE_DIR;
const probed = (a: string): boolean =>
  a.endsWith('board/main.js') ||
  (process.env.PANOPTES_PROBE_BARE === '1' && a.endsWith('bench/bare.js')) ||
  (process.env.PANOPTES_PROBE_SIM === '1' && a.endsWith('fleet/sim.js'));
if (dir !== undefined && isMainThread && process.argv.some(probed)) {
  mkdirSync(dir, { recursive: true });
  for (const flag of process.env.PANOPTES_PROBE_V8_FLAGS?.split(' ') ?? [])
    if (flag !== '') setFlagsFromString(flag);
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
  const survivors = process.env.PANOPTES_PROBE_SURVIVORS?.split(',').map(Number);
  if (survivors?.length === 2) {
    const [from = 0, to = 0] = survivors;
    const session = new Session();
    session.connect();
    setTimeout(() => {
      session.post('HeapProfiler.startSampling', {
        samplingInterval: 1024,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: process.env.PANOPTES_PROBE_ALLOCATIONS === '1',
      });
      setTimeout(
        () => {
          // A scavenge first: the young objects that die in it are not survivors.
          setFlagsFromString('--expose-gc');
          const gc = runInNewContext('gc') as (options: { type: 'minor' }) => void;
          gc({ type: 'minor' });
          session.post('HeapProfiler.stopSampling', (error, answer) => {
            if (error === null)
              writeFileSync(`${file}.heapprofile`, JSON.stringify(answer.profile));
          });
        },
        (to - from) * 1000,
      ).unref();
    }, from * 1000).unref();
  }
  let last = performance.now();
  setInterval(() => {
    const now = performance.now();
    if (now - last > 25) appendFileSync(`${file}.gap`, `${since()} ${Math.round(now - last)}\n`);
    last = now;
  }, 2).unref();
}
