/** How a child process ended: its exit code, or the signal that ended it. */
export interface Exit {
  code: number | null;
  signal: string | null;
}

/** A running child process, as the domain needs to see it. */
export interface Child {
  /** The process id, once started. */
  readonly pid: number | undefined;
  /** Resolves once the process runs; rejects with the reason it could not be started. */
  readonly started: Promise<void>;
  /** Resolves when the process has ended and its output is read (never rejects). */
  readonly exited: Promise<Exit>;
  /** Sends a signal to the process and everything it started (its process group). */
  kill(signal: 'SIGTERM' | 'SIGKILL'): void;
}

export interface SpawnRequest {
  argv: readonly string[];
  cwd: string | null;
  /** Variables set over the spawner's own environment (a service's `env:`). */
  env?: Readonly<Record<string, string>> | undefined;
  /** Receives stdout and stderr as they come, interleaved (stdout only with `onStderr`). */
  onOutput: (chunk: Buffer) => void;
  /** Receives stderr apart from stdout (a tool whose stdout is parsed). */
  onStderr?: (chunk: Buffer) => void;
}

/** Starts an argv directly, never through a shell. */
export type Spawner = (request: SpawnRequest) => Child;

/** Text for an exit, as an operator reads it. */
export function describeExit(exit: Exit): string {
  if (exit.signal !== null) return `killed by ${exit.signal}`;
  return `exit code ${exit.code ?? 'unknown'}`;
}
