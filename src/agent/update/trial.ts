import { open } from 'node:fs/promises';

/** The new agent process on trial. */
export interface Trial {
  pid: number;
  exited: Promise<{ code: number | null; signal: string | null }>;
  kill(signal: NodeJS.Signals): void;
}

/** SIGTERM, then SIGKILL after 5 s; resolves when the process has ended. */
export async function stopTrial(trial: Trial): Promise<void> {
  let ended = false;
  void trial.exited.then(() => {
    ended = true;
  });
  trial.kill('SIGTERM');
  const timer = setTimeout(() => {
    if (!ended) trial.kill('SIGKILL');
  }, 5000);
  await trial.exited;
  clearTimeout(timer);
}

/** Makes a rename in `dir` durable. */
export async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } catch {
    // Some filesystems refuse fsync on a directory; the rename stands anyway.
  } finally {
    await handle.close();
  }
}
