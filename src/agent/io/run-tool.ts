import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import type { Child, Spawner } from '../domain/spawner.js';

/** The most output a tool may print on stdout or stderr. */
export const TOOL_OUTPUT_MAX_BYTES = 1024 * 1024;

/** How one run of a machine's tool (nvidia-smi, smartctl) ended. */
export type ToolRun =
  /** Not there (removed since it was found). */
  | { kind: 'missing' }
  | { kind: 'not-started'; reason: string }
  | { kind: 'timed-out' }
  | { kind: 'too-much' }
  | { kind: 'exited'; code: number | null; signal: string | null; stdout: string; stderr: string };

/**
 * Runs tools one at a time with the agent's spawner (no shell, its own process group), in the C
 * locale, killing the group on a time-out or a cancel.
 */
export class ToolRunner {
  private running: Child | null = null;

  constructor(private readonly spawn: Spawner) {}

  async run(argv: readonly string[], timeoutMs: number): Promise<ToolRun> {
    const out = bounded();
    const err = bounded();
    const child = this.spawn({
      argv,
      cwd: null,
      env: { LC_ALL: 'C' },
      onOutput: out.add,
      onStderr: err.add,
    });
    try {
      await child.started;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'missing' };
      return { kind: 'not-started', reason: (error as Error).message };
    }
    this.running = child;
    let timedOut = false;
    const timer = setTimeout(
      () => {
        timedOut = true;
        child.kill('SIGKILL');
      },
      Math.max(0, timeoutMs),
    );
    timer.unref();
    const { code, signal } = await child.exited;
    clearTimeout(timer);
    this.running = null;
    if (timedOut) return { kind: 'timed-out' };
    if (out.over || err.over) return { kind: 'too-much' };
    return { kind: 'exited', code, signal, stdout: out.text(), stderr: err.text() };
  }

  /** Ends the run in flight, if any. */
  cancel(): void {
    this.running?.kill('SIGKILL');
  }
}

/** Output gathered up to TOOL_OUTPUT_MAX_BYTES; `over` once more came. */
function bounded() {
  const chunks: Buffer[] = [];
  let bytes = 0;
  const self = {
    over: false,
    add: (chunk: Buffer) => {
      if (self.over) return;
      bytes += chunk.length;
      if (bytes > TOOL_OUTPUT_MAX_BYTES) self.over = true;
      else chunks.push(chunk);
    },
    text: () => Buffer.concat(chunks).toString('utf8'),
  };
  return self;
}

/** The first line of a text that is not blank, trimmed; null when there is none. */
export function firstLine(text: string): string | null {
  const line = text.split('\n').find((l) => l.trim() !== '');
  return line === undefined ? null : line.trim();
}

/** Where `name` is an executable file in a directory of `path` (a PATH value), or null. */
export async function findExecutable(name: string, path: string): Promise<string | null> {
  const dirs = path.split(delimiter).filter((d) => d !== '');
  const suffixes = process.platform === 'win32' ? ['.exe', ''] : [''];
  for (const dir of dirs) {
    for (const suffix of suffixes) {
      const file = join(dir, name + suffix);
      if (await isExecutable(file)) return file;
    }
  }
  return null;
}

async function isExecutable(file: string): Promise<boolean> {
  try {
    await access(file, constants.X_OK);
    return (await stat(file)).isFile();
  } catch {
    return false;
  }
}
