import { rmSync } from 'node:fs';
import { announcingBoardDir } from './board-kit.js';
import {
  cpuSeconds,
  killEverything,
  type Program,
  ROOT,
  startBare,
  startBoard,
  startProgram,
} from './processes.js';
import { firstAnnounce } from './scenarios/report-flood.js';
import { reportScript, wrk } from './wrk.js';

/**
 * Where the board's reports/s go (issue 26's first row), step by step: the board, bare
 * node:http + JSON.parse, and bare servers doing the first 1…6 steps of the board's own work on
 * each body (bench/bare-steps.ts), under the capacity row's load (wrk -c32 keep-alive, 15,000
 * announced names), in alternating rounds, best of each; with each server's CPU per report
 * (user + system, /proc/<pid>/stat).
 *
 *   npm run build && npx tsc -b bench && node dist/bench/report-steps.js [ROUNDS]
 */
const rounds = Number(process.argv[2] ?? '3');
const seconds = 3;
const machines = 15_000;
const STEPS_SERVER = `${ROOT}dist/bench/bare-steps.js`;

const { dir, registration } = announcingBoardDir('panoptes-report-steps-', machines);
try {
  const board = await startBoard(dir);
  await firstAnnounce(board.url, registration, machines);
  const script = reportScript(dir, machines, registration);
  const servers: [string, Program][] = [
    ['board', board],
    ['bare node:http + JSON.parse', await startBare(['--reports'])],
  ];
  const labels = [
    'board parser',
    '+ schema check',
    '+ overview taken out',
    "+ overview's bytes",
    '+ metrics, sessions',
    '+ kept per name',
  ];
  for (const [i, label] of labels.entries()) {
    servers.push([
      `bare, ${i + 1}: ${label}`,
      await startProgram(`steps-${i + 1}`, STEPS_SERVER, [String(i + 1)]),
    ]);
  }
  const best = new Map<string, { perSecond: number; cpuUs: number }>();
  for (let r = 0; r < rounds; r++) {
    for (const [label, server] of servers) {
      const cpu0 = cpuSeconds(server.pid);
      const result = await wrk({ url: server.url, connections: 32, durationS: seconds, script });
      const cpu = cpuSeconds(server.pid) - cpu0;
      if (result.non2xx > 0) throw new Error(`${label}: ${result.non2xx} answers other than 2xx`);
      const perSecond = result.requestsPerSec;
      if ((best.get(label)?.perSecond ?? 0) < perSecond)
        best.set(label, { perSecond, cpuUs: (1e6 * cpu) / (perSecond * seconds) });
    }
  }
  const bare = best.get('bare node:http + JSON.parse')?.perSecond ?? Number.NaN;
  process.stdout.write(`| server | reports/s | ÷ bare | CPU per report |\n|---|---:|---:|---:|\n`);
  for (const [label, b] of best) {
    process.stdout.write(
      `| ${label} | ${b.perSecond.toFixed(0)} | ${(b.perSecond / bare).toFixed(3)} | ${b.cpuUs.toFixed(1)} µs |\n`,
    );
  }
} finally {
  killEverything();
  rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
