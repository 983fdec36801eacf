import type { Clock } from './clock.js';
import { OutputTail } from './output-tail.js';
import { describeExit, type Exit, type Spawner } from './spawner.js';

/** How long a command may ignore SIGTERM after its time-out before it is killed. */
export const KILL_GRACE_MS = 2000;

export interface RunOptions {
  cwd: string | null;
  env?: Readonly<Record<string, string>> | undefined;
  timeoutMs: number;
  killGraceMs?: number;
}

/** The outcome of running one argv to its end. */
export type RunResult =
  | { kind: 'exited'; exit: Exit; timedOut: boolean; output: string }
  | { kind: 'failed'; reason: string };

/**
 * Runs an argv (no shell) to its end, keeping the last 4 KiB of its output. Past `timeoutMs` it
 * gets SIGTERM, and SIGKILL if it is still there after the grace period.
 */
export async function runArgv(
  spawner: Spawner,
  clock: Clock,
  argv: readonly string[],
  options: RunOptions,
): Promise<RunResult> {
  const tail = new OutputTail();
  const child = spawner({
    argv,
    cwd: options.cwd,
    env: options.env,
    onOutput: (chunk) => tail.write(chunk),
  });
  try {
    await child.started;
  } catch (error) {
    return { kind: 'failed', reason: spawnFailure(argv, error) };
  }
  let timedOut = false;
  let cancelKill = (): void => undefined;
  const cancelTimeout = clock.setTimeout(() => {
    timedOut = true;
    child.kill('SIGTERM');
    cancelKill = clock.setTimeout(
      () => child.kill('SIGKILL'),
      options.killGraceMs ?? KILL_GRACE_MS,
    );
  }, options.timeoutMs);
  const exit = await child.exited;
  cancelTimeout();
  cancelKill();
  return { kind: 'exited', exit, timedOut, output: tail.text() };
}

/** An operator-readable reason why an argv could not be started (no environment, no token). */
export function spawnFailure(argv: readonly string[], error: unknown): string {
  const code =
    error !== null && typeof error === 'object' && 'code' in error ? String(error.code) : '';
  const program = argv[0] ?? '';
  if (code === 'ENOENT') return `cannot run ${program}: no such program or working directory`;
  if (code === 'EACCES') return `cannot run ${program}: permission denied`;
  return `cannot run ${program}: ${code || (error instanceof Error ? error.message : 'error')}`;
}

/** The text of a finished run as an action result shows it. */
export function runSummary(result: RunResult, timeoutMs: number): string {
  if (result.kind === 'failed') return result.reason;
  if (!result.timedOut) return result.output;
  const note = `[timed out after ${timeoutMs / 1000} s; ${describeExit(result.exit)}]`;
  return appendNote(result.output, note);
}

/** Appends a line to output, keeping the whole within the output limit. */
export function appendNote(output: string, note: string, limit = 4096): string {
  const joined = output === '' || output.endsWith('\n') ? `${output}${note}` : `${output}\n${note}`;
  const bytes = Buffer.from(joined, 'utf8');
  if (bytes.length <= limit) return joined;
  const tail = new OutputTail(limit);
  tail.write(bytes);
  return tail.text();
}
