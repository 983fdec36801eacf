import { rmSync } from 'node:fs';
import { announcingBoardDir } from './board-kit.js';
import { Fleet, killEverything, type Program, startBare, startBoard } from './processes.js';
import { firstAnnounce } from './scenarios/report-flood.js';

/**
 * How much each scavenge leaves in the server's heap while announced machines report at the
 * fleet's rate on a new connection each (issue 26, round 3's tenth pass): the heap's growth
 * from one scavenge to the next (V8's --trace-gc, mark-compacts left out), averaged. What
 * grows is what outlived the young generation or was allocated old: garbage that waits for a
 * mark-compact, and the RSS with it. The board (after M first announcements) or bare
 * node:http + JSON.parse (--bare), under the same simulator.
 *
 *   npm run build && npx tsc -b bench && node dist/bench/scavenge-growth.js [MACHINES] [SECONDS]
 *     [--bare] [--board SCRIPT] [--node-arg ARG]...
 */
const args = process.argv.slice(2);
const numbers = args.filter((a) => /^\d+$/.test(a)).map(Number);
const machines = numbers[0] ?? 15_000;
const seconds = numbers[1] ?? 15;
const bare = args.includes('--bare');
const boardAt = args.indexOf('--board');
const script = boardAt >= 0 ? args[boardAt + 1] : undefined;
const nodeArgs = args.flatMap((a, i) => (args[i - 1] === '--node-arg' ? [a] : []));

const COLLECTION =
  /^\[\d+:(0x[0-9a-f]+)\]\s+\d+ ms: (Scavenge|Mark-Compact)[^\d]*[\d.]+ \([\d.]+\) -> ([\d.]+) \(/;

const { dir, registration } = announcingBoardDir('panoptes-scavenge-growth-', machines);
let server: Program | null = null;
const fleet = await Fleet.start();
try {
  const traced = ['--trace-gc', ...nodeArgs];
  server = bare ? await startBare(['--reports'], traced) : await startBoard(dir, traced, script);
  if (!bare) await firstAnnounce(server.url, registration, machines);
  await new Promise((resolve) => setTimeout(resolve, 6000));
  const mark = server.output.length;
  const answer = await fleet.announce({
    board: server.url,
    token: registration,
    machines,
    rate: machines / 5,
    durationMs: seconds * 1000,
    maxInFlight: 2000,
  });
  // The main thread's collections only (each worker has an isolate of its own: the one with
  // the most lines is the main thread's), the first and last three left out (the load starting
  // and ending); a mark-compact between two scavenges leaves that pair out.
  const collections = server.output
    .slice(mark)
    .map((line) => COLLECTION.exec(line))
    .filter((m): m is RegExpExecArray => m !== null);
  const perIsolate = new Map<string, number>();
  for (const m of collections) perIsolate.set(m[1] ?? '', (perIsolate.get(m[1] ?? '') ?? 0) + 1);
  const main = [...perIsolate].sort((a, b) => b[1] - a[1])[0]?.[0];
  let previous: number | null = null;
  let growth = 0;
  let scavenges = 0;
  for (const m of collections.filter((c) => c[1] === main).slice(3, -3)) {
    const after = Number(m[3]);
    if (m[2] !== 'Scavenge') {
      previous = null;
      continue;
    }
    if (previous !== null) {
      growth += after - previous;
      scavenges += 1;
    }
    previous = after;
  }
  process.stdout.write(
    `${bare ? 'bare node:http + JSON.parse' : (script ?? 'board')}: ${answer.ok} of ${answer.sent} reports ok at ${machines / 5}/s for ${seconds} s (p99 ${answer.latencyMs.p99.toFixed(1)} ms); ` +
      (scavenges === 0
        ? 'too few scavenges to tell (a longer or larger load)\n'
        : `${scavenges} scavenges, the heap ${(growth / scavenges).toFixed(2)} MB larger after each than after the one before\n`),
  );
} finally {
  await fleet.stop();
  await server?.stop();
  killEverything();
  rmSync(dir, { recursive: true, force: true });
}
