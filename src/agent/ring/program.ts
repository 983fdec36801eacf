import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';

/** What the bell and the hooks commands take from their process (tests give their own). */
export interface ProgramIo {
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** The directory of the running program: the one-file agent's, the binary's, a clone's dist. */
  programDir: string;
  /** The argv that runs this program again: node and the file, or the binary alone. */
  self: readonly string[];
  out(text: string): void;
  err(line: string): void;
  /** Standard input as text, at most `maxBytes`; null when it is a terminal. */
  readStdin(maxBytes: number, signal: AbortSignal): Promise<string | null>;
}

/** Whether this is a single executable application (the agent binary), not node running a file. */
export function isSea(): boolean {
  try {
    const sea = createRequire(import.meta.url)('node:sea') as { isSea(): boolean };
    return sea.isSea();
  } catch {
    return false;
  }
}

/** The process's own. */
export function programIo(): ProgramIo {
  const self = isSea()
    ? [process.execPath]
    : [process.execPath, resolve(process.argv[1] ?? 'panoptes-agent.mjs')];
  return {
    env: process.env,
    cwd: process.cwd(),
    programDir: dirname(self.at(-1) as string),
    self,
    out: (text) => process.stdout.write(text),
    err: (line) => process.stderr.write(`${line}\n`),
    readStdin,
  };
}

async function readStdin(maxBytes: number, signal: AbortSignal): Promise<string | null> {
  if (process.stdin.isTTY) return null;
  const chunks: Buffer[] = [];
  let size = 0;
  const aborted = new Promise<never>((_, reject) => {
    signal.addEventListener('abort', () => reject(new Error('stdin did not end within 5 s')), {
      once: true,
    });
  });
  const read = (async () => {
    for await (const chunk of process.stdin) {
      const buffer = chunk as Buffer;
      size += buffer.length;
      if (size > maxBytes) throw new Error('the hook payload on stdin is over 1 MiB');
      chunks.push(buffer);
    }
    return Buffer.concat(chunks).toString('utf8');
  })();
  // Whichever loses the race must not end the process as an unhandled rejection.
  aborted.catch(() => undefined);
  read.catch(() => undefined);
  try {
    return await Promise.race([read, aborted]);
  } finally {
    process.stdin.destroy();
  }
}
