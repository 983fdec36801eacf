import { readFileSync, rmSync } from 'node:fs';
import { announcingBoardDir } from './board-kit.js';
import { killEverything, startBoard } from './processes.js';
import { firstAnnounce } from './scenarios/report-flood.js';

/**
 * Where a board's memory is at rest (issue 26): RSS of an empty board and of the same board after
 * N machines announced twice and 6 s of quiet, with `/proc/PID/status` (anonymous and file
 * pages, threads) and the largest mappings of `/proc/PID/smaps` by file ([anon]: V8's pages
 * and large malloc blocks; [heap]: malloc's main arena; node: the binary's code). With the
 * board probe (board-probe.ts) on, PID.mem splits the V8 heap from array buffers. Then the
 * view: the RSS with it built (one GET), after the board's idle time has given it up
 * (view-cache.ts), and how long a GET takes to rebuild it then, against one served as built.
 *
 * With `--no-history`, the board runs with `history: false`: what history costs at rest.
 *
 *   npx tsc -b . bench && node dist/bench/rest-mem.js [MACHINES] [BOARD_SCRIPT] [--no-history]
 */
const args = process.argv.slice(2).filter((a) => a !== '--no-history');
const noHistory = process.argv.includes('--no-history');
const machines = Number(args[0] ?? '15000');
const script = args[1];
const smaps = (pid: number): string => {
  const text = readFileSync(`/proc/${pid}/smaps`, 'utf8');
  const sums = new Map<string, number>();
  let name = '';
  for (const line of text.split('\n')) {
    const head = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) {
      const file = head[1] ?? '';
      name = file === '' ? '[anon]' : file.replace(/.*\//, '');
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss) sums.set(name, (sums.get(name) ?? 0) + Number(rss[1]));
  }
  return [...sums]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 8)
    .map(([n, kb]) => `${n}=${(kb / 1024).toFixed(1)}`)
    .join(' ');
};
const status = (pid: number): string =>
  readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .filter((l) => /^(VmRSS|RssAnon|RssFile|Threads)/.test(l))
    .map((l) => l.replace(/\s+/g, ' '))
    .join('; ');
const { dir, registration, boardToken } = announcingBoardDir(
  'panoptes-rest-mem-',
  machines,
  noHistory ? { history: false } : {},
);
/**
 * One GET /api/board read to its end: ms to its headers (the board's rebuild, if any, comes
 * before them), ms to its last byte, and bytes.
 */
const getView = async (url: string): Promise<string> => {
  const t0 = performance.now();
  const answer = await fetch(`${url}/api/board`, {
    headers: { authorization: `Bearer ${boardToken}` },
  });
  const headers = performance.now() - t0;
  const bytes = (await answer.arrayBuffer()).byteLength;
  const ms = (performance.now() - t0).toFixed(1);
  return `GET headers ${headers.toFixed(1)} ms, all ${ms} ms (${(bytes / 1e6).toFixed(1)} MB)`;
};
try {
  const board = await startBoard(dir, [], script);
  await new Promise((r) => setTimeout(r, 4000));
  console.log('empty :', status(board.pid));
  console.log('       ', smaps(board.pid));
  await firstAnnounce(board.url, registration, machines);
  await firstAnnounce(board.url, registration, machines);
  await new Promise((r) => setTimeout(r, 6000));
  console.log('rest  :', status(board.pid));
  console.log('       ', smaps(board.pid));
  const first = await getView(board.url);
  const again = await getView(board.url);
  console.log(`view  : ${first}, then ${again};`, status(board.pid));
  await new Promise((r) => setTimeout(r, 12_000));
  console.log('idle  :', status(board.pid));
  const rebuilt = await getView(board.url);
  const served = await getView(board.url);
  console.log(`after : ${rebuilt} (rebuilt), then ${served};`, status(board.pid));
  await board.stop();
} finally {
  killEverything();
  rmSync(dir, { recursive: true, force: true });
}
