import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { announcingBoardDir } from './board-kit.js';
import { killEverything, startBoard } from './processes.js';
import { firstAnnounce } from './scenarios/report-flood.js';

/**
 * What a round of reports leaves alive in the board's heap (issue 26): a board announces N
 * names (twice, so that every machine has been seen), takes a heap snapshot, takes one more
 * report from each of the N machines (keep-alive, 64 connections), takes a second snapshot, and
 * lists the objects of the second that are not in the first (V8 numbers objects in the order it
 * first sees them), grouped by type and by what holds them. What each report replaces lives
 * until that machine's next report, so all of it outlives the young generation.
 *
 * With `--at-rest`, one snapshot only, after the announcements and 6 s of quiet, and every
 * object in it grouped the same way: where the board's heap is at rest. With `--no-history`, the
 * board runs with `history: false` (what history keeps in the board's heap, by difference).
 *
 *   npm run build && npx tsc -b bench && node dist/bench/heap-diff.js [MACHINES] [--at-rest] [--no-history] [--board SCRIPT]
 */
const args = process.argv.slice(2);
const machines = Number(args.find((a) => /^\d+$/.test(a)) ?? '15000');
const boardAt = args.indexOf('--board');
const script = boardAt >= 0 ? args[boardAt + 1] : undefined;
const atRest = args.includes('--at-rest');
const noHistory = args.includes('--no-history');

interface Snapshot {
  snapshot: {
    meta: {
      node_fields: string[];
      node_types: [string[]];
      edge_fields: string[];
      edge_types: [string[]];
    };
  };
  nodes: number[];
  edges: number[];
  strings: string[];
}

/** Ids above this are V8's ids of native (non-heap) entries, not numbered in order. */
const NATIVE_IDS = 1e9;

const { dir, registration } = announcingBoardDir(
  'panoptes-heap-diff-',
  machines,
  noHistory ? { history: false } : {},
);
try {
  const board = await startBoard(
    dir,
    ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${dir}`],
    script,
  );
  /** Asks for snapshot number `count` and waits until V8 has written it whole. */
  const snapshot = async (count: number): Promise<string> => {
    process.kill(board.pid, 'SIGUSR2');
    let size = -1;
    for (let i = 0; i < 600; i++) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const files = readdirSync(dir)
        .filter((f) => f.endsWith('.heapsnapshot'))
        .sort();
      const file = files[count - 1];
      if (file === undefined) continue;
      const now = statSync(join(dir, file)).size;
      if (now > 0 && now === size) return join(dir, file);
      size = now;
    }
    throw new Error('no heap snapshot within 10 minutes');
  };
  await firstAnnounce(board.url, registration, machines);
  await firstAnnounce(board.url, registration, machines);
  await new Promise((resolve) => setTimeout(resolve, 6000));
  const before = await snapshot(1);
  if (atRest) {
    await board.stop();
    process.stdout.write(`${summary(null, before, 0)}\n`);
  } else {
    const round = await firstAnnounce(board.url, registration, machines);
    const after = await snapshot(2);
    await board.stop();
    process.stdout.write(`${summary(before, after, round.ok)}\n`);
  }
} finally {
  killEverything();
  rmSync(dir, { recursive: true, force: true });
}

/** The objects of `afterFile` not in `beforeFile` (every object when it is null), grouped. */
function summary(beforeFile: string | null, afterFile: string, reports: number): string {
  const b = JSON.parse(readFileSync(afterFile, 'utf8')) as Snapshot;
  const field = (s: Snapshot, name: string): number => s.snapshot.meta.node_fields.indexOf(name);
  let maxId = 0;
  if (beforeFile !== null) {
    const a = JSON.parse(readFileSync(beforeFile, 'utf8')) as Snapshot;
    const nfA = a.snapshot.meta.node_fields.length;
    for (let i = 0; i < a.nodes.length; i += nfA) {
      const id = a.nodes[i + field(a, 'id')] as number;
      if (id < NATIVE_IDS && id > maxId) maxId = id;
    }
  }
  const meta = b.snapshot.meta;
  const nf = meta.node_fields.length;
  const ef = meta.edge_fields.length;
  const [ti, ni, ii, si, ci] = ['type', 'name', 'id', 'self_size', 'edge_count'].map((f) =>
    field(b, f),
  ) as [number, number, number, number, number];
  const [eti, eni, eto] = ['type', 'name_or_index', 'to_node'].map((f) =>
    meta.edge_fields.indexOf(f),
  ) as [number, number, number];
  const N = b.nodes;
  const E = b.edges;
  const S = b.strings;
  const type = (i: number): string => meta.node_types[0][N[i + ti] as number] as string;
  const isNew = (i: number): boolean => {
    if (beforeFile === null) return true;
    const id = N[i + ii] as number;
    return id > maxId && id < NATIVE_IDS;
  };
  // What first holds each new object (one strong edge), for grouping.
  const holder = new Map<number, [number, string]>();
  let e = 0;
  for (let i = 0; i < N.length; i += nf) {
    for (let k = 0; k < (N[i + ci] as number); k++, e += ef) {
      const kind = meta.edge_types[0][E[e + eti] as number];
      if (kind === 'weak') continue;
      const to = E[e + eto] as number;
      if (!isNew(to) || holder.has(to)) continue;
      const name =
        kind === 'element' || kind === 'hidden' ? '[i]' : (S[E[e + eni] as number] ?? '');
      holder.set(to, [i, name]);
    }
  }
  const describe = (i: number): string => {
    const t = type(i);
    return t === 'object' || t === 'native'
      ? `${t}:${(S[N[i + ni] as number] ?? '').slice(0, 30)}`
      : t;
  };
  const groups = new Map<string, [number, number]>();
  let count = 0;
  let bytes = 0;
  for (let i = 0; i < N.length; i += nf) {
    if (!isNew(i)) continue;
    count += 1;
    bytes += N[i + si] as number;
    let key = describe(i);
    const up = holder.get(i);
    if (up !== undefined) {
      key += ` <- ${describe(up[0])}.${up[1]}`;
      const upper = holder.get(up[0]);
      if (upper !== undefined) key += ` <- ${describe(upper[0])}.${upper[1]}`;
    }
    const g = groups.get(key) ?? [0, 0];
    g[0] += 1;
    g[1] += N[i + si] as number;
    groups.set(key, g);
  }
  const lines = [
    beforeFile === null
      ? `${machines} machines, at rest: ${count} objects, ${(bytes / 1e6).toFixed(1)} MB ` +
        '(backing stores of buffers included)'
      : `${machines} machines; ${reports} reports between the snapshots; new objects kept: ${count} ` +
        `(${(count / Math.max(1, reports)).toFixed(1)} a report), ${(bytes / 1e6).toFixed(1)} MB ` +
        `(${(bytes / Math.max(1, reports)).toFixed(0)} bytes a report, backing stores of buffers included)`,
    '  objects      bytes  what <- held by <- held by',
  ];
  for (const [key, [n, size]] of [...groups].sort((x, y) => y[1][1] - x[1][1]).slice(0, 30))
    lines.push(`${String(n).padStart(9)} ${String(size).padStart(10)}  ${key}`);
  return lines.join('\n');
}
