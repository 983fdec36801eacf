import type { Static } from '../../shared/typebox.js';
import { safeText } from '../../shared/wire/free-text.js';
import { PROCESSES_MAX, type ProcessView } from '../../shared/wire/machine-now.js';

export type ProcessEntry = Static<typeof ProcessView>;

/** Clock ticks a second in /proc (USER_HZ: 100 on every mainstream Linux architecture). */
export const CLK_TCK = 100;
/** How many of the busiest by CPU, and how many by memory, the overview lists. */
export const BUSIEST_COUNT = 10;
const NAME_MAX = 64;

/** One process as /proc/PID/stat tells it. */
export interface ProcStat {
  pid: number;
  /** The executable's name (comm), at most 15 bytes in the kernel; never the arguments. */
  comm: string;
  /** utime + stime: CPU time used, in clock ticks. */
  ticks: number;
  /** When it started, in clock ticks after boot: tells a reused pid apart. */
  startTicks: number;
  /** Resident pages. */
  rssPages: number;
}

/**
 * /proc/PID/stat, e.g. `1234 (my (odd) name) S 1 …`. The name is between the first `(` and
 * the LAST `)`: it may hold spaces and parentheses of its own. Null when malformed.
 */
export function parseProcStat(text: string): ProcStat | null {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 1 || close < open) return null;
  const pid = Number(text.slice(0, open).trim());
  // After the name: field 3 (state) is index 0, so field N is at index N - 3.
  const fields = text
    .slice(close + 1)
    .trim()
    .split(/\s+/);
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  const startTicks = Number(fields[19]);
  const rssPages = Number(fields[21]);
  if (!Number.isSafeInteger(pid) || pid < 1) return null;
  if (![utime, stime, startTicks, rssPages].every(Number.isFinite)) return null;
  return {
    pid,
    comm: text.slice(open + 1, close),
    ticks: utime + stime,
    startTicks,
    rssPages: Math.max(0, rssPages),
  };
}

/** /proc/PID/status: the effective uid (as `ps` shows the user) and VmRSS in bytes. */
export function parseProcStatus(text: string): { uid: number | null; rssBytes: number | null } {
  const uid = /^Uid:\s+\d+\s+(\d+)/m.exec(text);
  const rss = /^VmRSS:\s+(\d+)\s+kB/m.exec(text);
  return {
    uid: uid?.[1] === undefined ? null : Number(uid[1]),
    rssBytes: rss?.[1] === undefined ? null : Number(rss[1]) * 1024,
  };
}

/** /etc/passwd as uid → user name (the first name of a uid wins, as getpwuid gives it). */
export function parsePasswd(text: string): Map<number, string> {
  const users = new Map<number, string>();
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const [name, , uid] = line.split(':');
    const id = Number(uid);
    if (name === undefined || name === '' || uid === undefined || uid === '') continue;
    if (!Number.isSafeInteger(id) || users.has(id)) continue;
    users.set(id, name);
  }
  return users;
}

/** One read of the process table: the stats and the machine's uptime when they were read. */
export interface ProcessSample {
  /** Seconds since boot (/proc/uptime), the clock the ticks are counted on. */
  uptimeS: number;
  stats: readonly ProcStat[];
}

/**
 * Each process's CPU share, 0–1 of all CPUs: its ticks since the previous sample over the
 * ticks all CPUs had meanwhile. A process not in the previous sample (the first read, a new or
 * reused pid) gets its average over its life, as `ps` shows it.
 */
export class ProcessCpu {
  private previous: { uptimeS: number; byPid: Map<number, ProcStat> } | null = null;

  constructor(
    private readonly cpus: number,
    private readonly clkTck: number = CLK_TCK,
  ) {}

  shares(sample: ProcessSample): Map<number, number> {
    const out = new Map<number, number>();
    const perSecond = this.clkTck * Math.max(1, this.cpus);
    const prev = this.previous;
    const interval = prev === null ? 0 : sample.uptimeS - prev.uptimeS;
    for (const stat of sample.stats) {
      const before = prev?.byPid.get(stat.pid);
      let share: number;
      if (before !== undefined && before.startTicks === stat.startTicks && interval > 0) {
        share = (stat.ticks - before.ticks) / (interval * perSecond);
      } else {
        const life = sample.uptimeS - stat.startTicks / this.clkTck;
        share = life > 0 ? stat.ticks / (life * perSecond) : 0;
      }
      out.set(stat.pid, clampShare(share));
    }
    this.previous = {
      uptimeS: sample.uptimeS,
      byPid: new Map(sample.stats.map((s) => [s.pid, s])),
    };
    return out;
  }
}

function clampShare(x: number): number {
  if (!Number.isFinite(x) || x <= 0) return 0;
  return Math.min(1, Math.round(x * 10_000) / 10_000);
}

/**
 * The busiest processes: the union of the `count` with the most CPU and the `count` with the
 * most resident memory (ties by pid), those by CPU first.
 */
export function busiest(
  stats: readonly ProcStat[],
  shares: ReadonlyMap<number, number>,
  count: number = BUSIEST_COUNT,
): ProcStat[] {
  const cpu = (s: ProcStat) => shares.get(s.pid) ?? 0;
  const byCpu = [...stats].sort((a, b) => cpu(b) - cpu(a) || a.pid - b.pid).slice(0, count);
  const chosen = new Set(byCpu.map((s) => s.pid));
  const byMem = [...stats]
    .sort((a, b) => b.rssPages - a.rssPages || a.pid - b.pid)
    .slice(0, count)
    .filter((s) => !chosen.has(s.pid));
  return [...byCpu, ...byMem].slice(0, PROCESSES_MAX);
}

/** A process as the overview lists it: a clean short name and user, never the arguments. */
export function processEntry(
  stat: ProcStat,
  share: number,
  user: string,
  memBytes: number,
): ProcessEntry {
  return {
    pid: stat.pid,
    name: cleanLine(stat.comm) || '?',
    user: cleanLine(user) || '?',
    cpu: clampShare(share),
    mem: Math.max(0, Math.min(Number.MAX_SAFE_INTEGER, Math.round(memBytes))),
  };
}

function cleanLine(text: string): string {
  return safeText(text).slice(0, NAME_MAX);
}
