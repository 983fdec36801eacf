import { readFileSync, writeFileSync } from 'node:fs';

/**
 * Summarises a V8 .cpuprofile (from `npm run bench -- --cpu-prof DIR`): the functions with the
 * most self time and the most total time, and (with --folded FILE) the folded stacks that
 * flamegraph.pl or speedscope draw as a flame graph. The .cpuprofile itself opens in Chrome
 * DevTools and speedscope as it is.
 *
 *   node dist/bench/profile-summary.js DIR/board-fleet-1000/CPU.*.0.001.cpuprofile [--top 25] [--folded out.txt]
 *     [--window A-B]     only the samples from A to B seconds after the profile's start
 *     [--timeline S]     first, the thread's busy share (samples other than idle) per S seconds
 *     [--stretches MS]   the busy stretches (samples other than idle, back to back) of MS ms or
 *                        more in the window: how many, how long, and what filled them, by the
 *                        first frame of the stretch's stack in the board's code (dist/), or the
 *                        runtime's entry frame (the GC, a timer, a socket read)
 */

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

const args = process.argv.slice(2);
const file = args[0];
if (file === undefined) {
  process.stderr.write('usage: profile-summary.js FILE.cpuprofile [--top N] [--folded OUT]\n');
  process.exit(2);
}
const topIndex = args.indexOf('--top');
const top = topIndex >= 0 ? Number(args[topIndex + 1]) : 25;
const foldedIndex = args.indexOf('--folded');
const foldedFile = foldedIndex >= 0 ? args[foldedIndex + 1] : undefined;

const windowIndex = args.indexOf('--window');
const [fromS = 0, toS = Number.POSITIVE_INFINITY] =
  windowIndex >= 0 ? (args[windowIndex + 1] ?? '').split('-').map(Number) : [];
const stretchesIndex = args.indexOf('--stretches');
const stretchMs = stretchesIndex >= 0 ? Number(args[stretchesIndex + 1]) : null;
const timelineIndex = args.indexOf('--timeline');
const bucketS = timelineIndex >= 0 ? Number(args[timelineIndex + 1]) : null;

const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

const selfUs = new Map<number, number>();
/** Per timeline bucket: [busy µs, all µs]. */
const buckets: [number, number][] = [];
let atUs = 0;
profile.samples.forEach((id, i) => {
  const us = profile.timeDeltas[i] ?? 0;
  atUs += us;
  if (bucketS !== null) {
    const b = Math.floor(atUs / 1e6 / bucketS);
    for (let k = buckets.length; k <= b; k += 1) buckets.push([0, 0]);
    const bucket = buckets[b] as [number, number];
    if (byId.get(id)?.callFrame.functionName !== '(idle)') bucket[0] += us;
    bucket[1] += us;
  }
  if (atUs < fromS * 1e6 || atUs > toS * 1e6) return;
  selfUs.set(id, (selfUs.get(id) ?? 0) + us);
});
if (bucketS !== null) {
  process.stdout.write(`busy share per ${bucketS} s (from the profile's start)\n`);
  buckets.forEach(([busy, all], b) => {
    const pct = all === 0 ? 0 : (100 * busy) / all;
    process.stdout.write(
      `${(b * bucketS).toFixed(1).padStart(7)} s ${pct.toFixed(0).padStart(4)} %  ${'#'.repeat(Math.round(pct / 2))}\n`,
    );
  });
}

function label(n: ProfileNode): string {
  const where = n.callFrame.url
    .replace(/^.*\/(node_modules|dist)\//, '$1/')
    .replace(/^file:\/\//, '');
  const name = n.callFrame.functionName || '(anonymous)';
  return where === '' ? name : `${name} ${where}:${n.callFrame.lineNumber + 1}`;
}

function stackOf(id: number): ProfileNode[] {
  const stack: ProfileNode[] = [];
  let at: number | undefined = id;
  while (at !== undefined) {
    const n = byId.get(at);
    if (n !== undefined) stack.push(n);
    at = parent.get(at);
  }
  return stack.reverse();
}

const selfByLabel = new Map<string, number>();
const totalByLabel = new Map<string, number>();
const folded = new Map<string, number>();
let total = 0;
for (const [id, us] of selfUs) {
  total += us;
  const stack = stackOf(id);
  const leaf = stack.at(-1);
  if (leaf !== undefined) selfByLabel.set(label(leaf), (selfByLabel.get(label(leaf)) ?? 0) + us);
  const seen = new Set<string>();
  for (const n of stack) {
    const l = label(n);
    if (seen.has(l)) continue;
    seen.add(l);
    totalByLabel.set(l, (totalByLabel.get(l) ?? 0) + us);
  }
  const key = stack.map((n) => label(n).replace(/;/g, ',')).join(';');
  folded.set(key, (folded.get(key) ?? 0) + us);
}

const show = (title: string, map: Map<string, number>) => {
  process.stdout.write(`\n${title}\n`);
  for (const [l, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    process.stdout.write(
      `${((100 * us) / total).toFixed(1).padStart(6)} %  ${(us / 1000).toFixed(0).padStart(7)} ms  ${l}\n`,
    );
  }
};
process.stdout.write(`${file}: ${(total / 1000).toFixed(0)} ms sampled\n`);
show('self time', selfByLabel);
show('total time (inclusive)', totalByLabel);
if (stretchMs !== null) showStretches(stretchMs);
if (foldedFile !== undefined) {
  writeFileSync(foldedFile, [...folded].map(([k, us]) => `${k} ${Math.round(us)}`).join('\n'));
  process.stdout.write(
    `\nfolded stacks: ${foldedFile} (flamegraph.pl ${foldedFile} > flame.svg)\n`,
  );
}

/** What a sample's stack was doing, for --stretches: its first frame in dist/, else its entry. */
function taskOf(id: number): string {
  const stack = stackOf(id);
  const ours = stack.find((n) => n.callFrame.url.includes('/dist/'));
  const entry = ours ?? stack[1] ?? stack[0];
  return entry === undefined ? '?' : label(entry);
}

function showStretches(minMs: number): void {
  const stretches: { us: number; by: Map<string, number> }[] = [];
  let open: { us: number; by: Map<string, number> } | null = null;
  let at = 0;
  let windowUs = 0;
  profile.samples.forEach((id, i) => {
    const us = profile.timeDeltas[i] ?? 0;
    at += us;
    if (at < fromS * 1e6 || at > toS * 1e6) return;
    windowUs += us;
    if (byId.get(id)?.callFrame.functionName === '(idle)') {
      if (open !== null) stretches.push(open);
      open = null;
      return;
    }
    open ??= { us: 0, by: new Map() };
    open.us += us;
    const task = taskOf(id);
    open.by.set(task, (open.by.get(task) ?? 0) + us);
  });
  const long = stretches.filter((x) => x.us >= minMs * 1000);
  const sum = long.reduce((n, x) => n + x.us, 0);
  process.stdout.write(
    `\nbusy stretches of ${minMs} ms or more: ${long.length} in ${(windowUs / 1e6).toFixed(1)} s, ${(sum / 1000).toFixed(0)} ms in all (${((100 * sum) / windowUs).toFixed(1)} % of the time)\n`,
  );
  const edges = [minMs, 2 * minMs, 4 * minMs, 8 * minMs, 16 * minMs];
  for (let k = 0; k < edges.length; k += 1) {
    const lo = edges[k] as number;
    const hi = edges[k + 1] ?? Number.POSITIVE_INFINITY;
    const n = long.filter((x) => x.us >= lo * 1000 && x.us < hi * 1000).length;
    process.stdout.write(
      `  ${String(lo).padStart(4)}–${hi === Number.POSITIVE_INFINITY ? '' : hi} ms: ${n}\n`,
    );
  }
  // The longest, each with what filled it.
  for (const x of [...long].sort((a, b) => b.us - a.us).slice(0, 8)) {
    const parts = [...x.by].sort((a, b) => b[1] - a[1]).slice(0, 4);
    process.stdout.write(
      `  ${(x.us / 1000).toFixed(1).padStart(6)} ms: ${parts.map(([t, us]) => `${(us / 1000).toFixed(1)} ${t}`).join(' | ')}\n`,
    );
  }
  const by = new Map<string, number>();
  for (const x of long) for (const [task, us] of x.by) by.set(task, (by.get(task) ?? 0) + us);
  show(`what filled them (of ${(sum / 1000).toFixed(0)} ms)`, by);
}
