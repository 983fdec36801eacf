import { stat, statfs } from 'node:fs/promises';
import os from 'node:os';
import type { DiskSpace, SystemProbe } from '../domain/overview.js';

/** How long one filesystem may take to answer (a hung network mount must not hang the overview). */
const STATFS_TIMEOUT_MS = 1000;

/** The machine as Node's os module and fs.statfs see it; disks are the filesystems of `paths`. */
export function nodeSystemProbe(paths: readonly string[]): SystemProbe {
  return {
    hostname: () => os.hostname(),
    platform: () => os.platform(),
    arch: () => os.arch(),
    uptimeS: () => os.uptime(),
    load: () => os.loadavg(),
    cpus: () => os.cpus(),
    memory: () => ({ total: os.totalmem(), free: os.freemem() }),
    disks: () => disks(paths),
  };
}

async function disks(paths: readonly string[]): Promise<DiskSpace[]> {
  const answers = await Promise.all(paths.map((path) => withTimeout(disk(path))));
  const seen = new Set<number>();
  const out: DiskSpace[] = [];
  for (const answer of answers) {
    // Two paths on one filesystem are shown once, under the first path.
    if (answer === null || seen.has(answer.dev)) continue;
    seen.add(answer.dev);
    out.push(answer.space);
  }
  return out;
}

async function disk(path: string): Promise<{ dev: number; space: DiskSpace } | null> {
  try {
    const [{ dev }, fs] = await Promise.all([stat(path), statfs(path)]);
    const total = fs.blocks * fs.bsize;
    const free = fs.bavail * fs.bsize;
    const used = Math.max(0, (fs.blocks - fs.bfree) * fs.bsize);
    return { dev, space: { path, total, free, used } };
  } catch {
    return null;
  }
}

function withTimeout<T>(promise: Promise<T | null>): Promise<T | null> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(null), STATFS_TIMEOUT_MS);
    timer.unref();
    void promise.then((value) => {
      clearTimeout(timer);
      resolve(value);
    });
  });
}
