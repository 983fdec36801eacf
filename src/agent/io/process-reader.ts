import { readdir, readFile, stat } from 'node:fs/promises';
import { cpus as osCpus } from 'node:os';
import { join } from 'node:path';
import {
  busiest,
  ProcessCpu,
  type ProcessEntry,
  type ProcStat,
  parsePasswd,
  parseProcStat,
  parseProcStatus,
  processEntry,
} from '../domain/processes.js';
import type { SourceRead, SourceReader } from '../domain/source-watch.js';

/** Resident bytes of a page when /proc/PID/status has no VmRSS (a kernel thread: 0 pages). */
const PAGE_BYTES = 4096;
/** Files read at once while walking /proc. */
const PARALLEL = 32;

export interface ProcessReaderOptions {
  /** The proc filesystem (default /proc); tests give a small tree of their own. */
  procRoot?: string;
  /** Where user names come from (default /etc/passwd). */
  passwd?: string;
  /** How many CPUs the ticks are shared by (default: os.cpus()). */
  cpus?: () => number;
}

/**
 * The busiest processes from /proc: each one's `stat` (name, CPU ticks, resident pages), then
 * for the chosen few `status` (user, VmRSS). Never `cmdline` nor `environ`: arguments and
 * environments carry passwords. A process that ends while it is read is left out.
 */
export function nodeProcessReader(
  options: ProcessReaderOptions = {},
): SourceReader<ProcessEntry[]> {
  const root = options.procRoot ?? '/proc';
  const users = new PasswdCache(options.passwd ?? '/etc/passwd');
  const countCpus = options.cpus ?? (() => osCpus().length);
  let meter: ProcessCpu | null = null;
  let cancelled = false;
  return {
    async read(timeoutMs) {
      cancelled = false;
      const deadline = Date.now() + timeoutMs;
      const late = (): SourceRead<ProcessEntry[]> => ({
        kind: 'failed',
        reason: `reading ${root} took more than ${timeoutMs} ms`,
      });
      let uptimeS: number;
      let pids: number[];
      try {
        uptimeS = parseUptime(await readFile(join(root, 'uptime'), 'utf8'));
        pids = (await readdir(root)).filter((n) => /^\d+$/.test(n)).map(Number);
      } catch (error) {
        // No /proc (not Linux): the machine has no such source.
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'absent' };
        return { kind: 'failed', reason: `${root}: ${(error as Error).message}` };
      }
      if (!Number.isFinite(uptimeS))
        return { kind: 'failed', reason: `${root}/uptime is unreadable` };
      const stats: ProcStat[] = [];
      for (let i = 0; i < pids.length; i += PARALLEL) {
        if (cancelled || Date.now() > deadline) return late();
        const batch = pids.slice(i, i + PARALLEL);
        const read = await Promise.all(
          batch.map((pid) => readText(join(root, String(pid), 'stat'))),
        );
        for (const text of read) {
          const parsed = text === null ? null : parseProcStat(text);
          if (parsed !== null) stats.push(parsed);
        }
      }
      if (meter === null) meter = new ProcessCpu(countCpus());
      const shares = meter.shares({ uptimeS, stats });
      const names = await users.get();
      const out: ProcessEntry[] = [];
      for (const chosen of busiest(stats, shares)) {
        const status = await readText(join(root, String(chosen.pid), 'status'));
        // Ended since its stat was read.
        if (status === null) continue;
        const { uid, rssBytes } = parseProcStatus(status);
        const user = uid === null ? '?' : (names.get(uid) ?? String(uid));
        const mem = rssBytes ?? chosen.rssPages * PAGE_BYTES;
        out.push(processEntry(chosen, shares.get(chosen.pid) ?? 0, user, mem));
      }
      if (Date.now() > deadline) return late();
      return { kind: 'ok', value: out };
    },
    cancel() {
      cancelled = true;
    },
  };
}

/** `/proc/uptime`: "12345.67 23456.78" → seconds since boot. */
function parseUptime(text: string): number {
  return Number(text.trim().split(/\s+/)[0]);
}

/** A file's text, or null when it cannot be read (most often: the process has ended). */
async function readText(file: string): Promise<string | null> {
  try {
    return await readFile(file, 'utf8');
  } catch {
    return null;
  }
}

/** uid → name from a passwd file, read again only when its modification time changes. */
class PasswdCache {
  private mtimeMs = -1;
  private users = new Map<number, string>();

  constructor(private readonly file: string) {}

  async get(): Promise<Map<number, string>> {
    try {
      const { mtimeMs } = await stat(this.file);
      if (mtimeMs !== this.mtimeMs) {
        this.users = parsePasswd(await readFile(this.file, 'utf8'));
        this.mtimeMs = mtimeMs;
      }
    } catch {
      // Unreadable: users show as their uid.
      this.users = new Map();
      this.mtimeMs = -1;
    }
    return this.users;
  }
}
