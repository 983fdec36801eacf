import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const LISTENING = /listening at (https?:\/\/[^\s"]+)/;

/** A real program started as a child process in its own process group. */
export interface RunningProgram {
  /** The base URL from the program's listening line. */
  url: string;
  pid: number;
  child: ChildProcess;
  /** Every line the program wrote to stdout and stderr so far. */
  output: string[];
  /** Resolves when the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGTERM the group, SIGKILL after `graceMs`; resolves with the exit. */
  stop(graceMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGKILL the group at once, as `kill -9` would. */
  kill9(): Promise<void>;
}

export interface StartOptions {
  env?: NodeJS.ProcessEnv;
  /** How long to wait for the listening line. */
  timeoutMs?: number;
  cwd?: string;
  /** A command the program is started under (e.g. `unshare -m …`), ending in what execs it. */
  wrap?: string[];
  /** Written to the program's standard input, which is then closed (else it reads nothing). */
  input?: string;
}

const running = new Set<RunningProgram>();
const everStarted: RunningProgram[] = [];

/** Every program started in this test file so far (running or not), for the secret scan. */
export function startedPrograms(): readonly RunningProgram[] {
  return everStarted;
}
process.on('exit', () => {
  for (const p of running) killGroup(p.pid, 'SIGKILL');
});

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

/**
 * Starts `node dist/<program>/main.js …args` on 127.0.0.1 with a free port (--port 0 unless the
 * args say otherwise) and resolves once it has printed its listening line.
 */
export function startProgram(
  program: 'board' | 'agent' | 'start',
  args: string[],
  options: StartOptions = {},
): Promise<RunningProgram> {
  const fullArgs = [`${ROOT}dist/${program}/main.js`, ...args];
  if (!args.includes('--port')) fullArgs.push('--port', '0');
  if (!args.includes('--host')) fullArgs.push('--host', '127.0.0.1');
  const [command, ...prefix] = [...(options.wrap ?? []), process.execPath];
  return startProcess(program, command as string, [...prefix, ...fullArgs], {
    ...options,
    env: { ...process.env, PANOPTES_LOG_LEVEL: 'debug', ...options.env },
  });
}

/**
 * Runs one command line with /bin/sh in `cwd`, with exactly the environment `env` (nothing of
 * this process's), as a person pasting it would: the shell reads it from its standard input, so
 * no process holds the line in its arguments. Resolves at the first listening line.
 */
export function startShell(
  line: string,
  options: StartOptions & { cwd: string; env: NodeJS.ProcessEnv },
): Promise<RunningProgram> {
  return startProcess('sh', '/bin/sh', [], { ...options, input: `${line}\n` });
}

async function startProcess(
  program: string,
  command: string,
  args: string[],
  options: StartOptions,
): Promise<RunningProgram> {
  const child = spawn(command, args, {
    cwd: options.cwd ?? ROOT,
    env: options.env ?? process.env,
    detached: true,
    stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error(`could not start ${program}`);
  // A program that exits before reading it all must not fail the test with EPIPE.
  child.stdin?.on('error', () => undefined);
  child.stdin?.end(options.input);
  const output: string[] = [];
  // 'exit' can come before the last output has been read from the pipes; 'close' comes after.
  // Wait for both (the second at most 2 s: a leftover grandchild could hold a pipe open).
  const closed = once(child, 'close');
  const exited = once(child, 'exit').then(async ([code, signal]) => {
    await Promise.race([closed, new Promise((r) => setTimeout(r, 2000))]);
    return { code: code as number | null, signal: signal as NodeJS.Signals | null };
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      killGroup(pid, 'SIGKILL');
      reject(new Error(`${program} did not listen within time:\n${output.join('\n')}`));
    }, options.timeoutMs ?? 15_000);
    const onLine = (line: string) => {
      if (line === '') return;
      output.push(line);
      const match = LISTENING.exec(line);
      if (match?.[1] !== undefined) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    // Whole lines: a chunk read from a pipe can end in the middle of one.
    for (const input of [child.stdout, child.stderr]) {
      if (input !== null) createInterface({ input, crlfDelay: Infinity }).on('line', onLine);
    }
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(
        new Error(`${program} exited (${code ?? signal}) before listening:\n${output.join('\n')}`),
      );
    });
  });
  const handle: RunningProgram = {
    url,
    pid,
    child,
    output,
    exited,
    async stop(graceMs = 5000) {
      killGroup(pid, 'SIGTERM');
      const timer = setTimeout(() => killGroup(pid, 'SIGKILL'), graceMs);
      const result = await exited;
      clearTimeout(timer);
      running.delete(handle);
      return result;
    },
    async kill9() {
      killGroup(pid, 'SIGKILL');
      await exited;
      running.delete(handle);
    },
  };
  running.add(handle);
  everStarted.push(handle);
  return handle;
}

/** Starts a board with `--config dir`. */
export function startBoard(configDir: string, options?: StartOptions): Promise<RunningProgram> {
  return startProgram('board', ['--config', configDir], options);
}

/** Starts an agent with `--config file`. */
export function startAgent(configFile: string, options?: StartOptions): Promise<RunningProgram> {
  return startProgram('agent', ['--config', configFile], options);
}

/** Runs a program to completion (for tests of bad configs); resolves with its exit and output. */
export async function runToExit(
  program: 'board' | 'agent' | 'start',
  args: string[],
  options: StartOptions = {},
): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [`${ROOT}dist/${program}/main.js`, ...args], {
    cwd: options.cwd ?? ROOT,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (c: Buffer) => {
    output += c.toString('utf8');
  });
  child.stderr.on('data', (c: Buffer) => {
    output += c.toString('utf8');
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 15_000);
  // 'close', not 'exit': the output is read to its end only by then.
  const [code] = (await once(child, 'close')) as [number | null];
  clearTimeout(timer);
  return { code, output };
}
