import { readFileSync } from 'node:fs';

/**
 * Sums a heap profile written by the board probe (board-probe.ts, PANOPTES_PROBE_SURVIVORS):
 * bytes sampled by the function that allocated them, and by that function with its two
 * callers, largest first.
 *
 *   node dist/bench/survivors.js PID.heapprofile [ROWS]
 */
interface Frame {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: Frame[];
}

const [file, rowsArg] = process.argv.slice(2);
if (file === undefined) throw new Error('usage: survivors.js PID.heapprofile [ROWS]');
const rows = Number(rowsArg ?? '30');
const profile = JSON.parse(readFileSync(file, 'utf8')) as { head: Frame };
const label = (f: Frame): string => {
  const url = f.callFrame.url.replace(/^.*\/(dist|node_modules)\//, '$1/').replace(/^node:/, '');
  return `${f.callFrame.functionName || '(anonymous)'} ${url}:${f.callFrame.lineNumber + 1}`;
};
const bySite = new Map<string, number>();
const byPath = new Map<string, number>();
let total = 0;
const walk = (f: Frame, path: string[]): void => {
  const here = [...path, label(f)];
  if (f.selfSize > 0) {
    total += f.selfSize;
    const site = here.at(-1) as string;
    bySite.set(site, (bySite.get(site) ?? 0) + f.selfSize);
    const key = here.slice(-3).reverse().join('  <-  ');
    byPath.set(key, (byPath.get(key) ?? 0) + f.selfSize);
  }
  for (const c of f.children) walk(c, here);
};
walk(profile.head, []);
const show = (title: string, m: Map<string, number>): void => {
  console.log(`${title} (of ${(total / 1e6).toFixed(1)} MB sampled)`);
  for (const [k, v] of [...m].sort((a, b) => b[1] - a[1]).slice(0, rows))
    console.log(
      `${(v / 1e6).toFixed(2).padStart(8)} MB ${((100 * v) / total).toFixed(1).padStart(5)} %  ${k}`,
    );
};
show('by allocating function', bySite);
show('by function and its two callers', byPath);
