import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { ROOT } from './root.js';

export { ROOT };

const LISTENING = /listening at (https?:\/\/[^\s"]+)/;

/** How a process ended. */
export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A real program started as a child process in its own process group. */
export interface RunningProgram {
  /** What error messages call it. */
  name: string;
  /** The base URL from the program's listening line. */
  url: string;
  pid: number;
  child: ChildProcess;
  /** The lines the program wrote to stdout and stderr so far (all, unless `keepLines`). */
  output: string[];
  /** Resolves when the process has exited. */
  exited: Promise<Exit>;
  /** SIGTERM the group, SIGKILL after `graceMs`; resolves with the exit. */
  stop(graceMs?: number): Promise<Exit>;
  /** SIGKILL the group at once, as `kill -9` would. */
  kill9(): Promise<void>;
}

export interface ProcessOptions {
  /** The whole environment of the process (default: this process's). */
  env?: NodeJS.ProcessEnv;
  /** How long to wait for the listening line (default 15 s). */
  timeoutMs?: number;
  cwd?: string;
  /** Written to the program's standard input, which is then closed (else it reads nothing). */
  input?: string;
  /** Keep only the last this many output lines (a long bench run); default: every line. */
  keepLines?: number;
  /** The default grace of `stop()` (5 s). */
  stopGraceMs?: number;
}

/** Process groups to kill when this process exits: programs not stopped, tracked children. */
const groups = new Set<number>();
const everStarted: RunningProgram[] = [];

/** Every program started in this process so far (running or not), for the secret scan. */
export function startedPrograms(): readonly RunningProgram[] {
  return everStarted;
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

/** SIGKILLs every process group started here and not stopped yet (on exit, a signal, a watchdog). */
export function killEverything(): void {
  for (const pid of groups) killGroup(pid, 'SIGKILL');
  groups.clear();
}
process.on('exit', killEverything);

/** Kills `child`'s process group with everything else, unless it has exited by then. */
export function trackChild(child: ChildProcess): void {
  const pid = child.pid;
  if (pid === undefined) return;
  groups.add(pid);
  child.once('exit', () => groups.delete(pid));
}

/**
 * Starts `command args` detached (its own process group) and resolves once it has printed a
 * listening line, with the URL from it.
 */
export async function startProcess(
  name: string,
  command: string,
  args: string[],
  options: ProcessOptions = {},
): Promise<RunningProgram> {
  const child = spawn(command, args, {
    cwd: options.cwd ?? ROOT,
    env: options.env ?? process.env,
    detached: true,
    stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error(`could not start ${name}`);
  groups.add(pid);
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
      reject(new Error(`${name} did not listen within time:\n${output.join('\n')}`));
    }, options.timeoutMs ?? 15_000);
    const onLine = (line: string) => {
      if (line === '') return;
      output.push(line);
      if (options.keepLines !== undefined && output.length > options.keepLines) output.shift();
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
        new Error(`${name} exited (${code ?? signal}) before listening:\n${output.join('\n')}`),
      );
    });
  });
  const handle: RunningProgram = {
    name,
    url,
    pid,
    child,
    output,
    exited,
    async stop(graceMs = options.stopGraceMs ?? 5000) {
      killGroup(pid, 'SIGTERM');
      const timer = setTimeout(() => {
        output.push(`[harness] ${name} did not exit within ${graceMs} ms of SIGTERM: SIGKILL`);
        killGroup(pid, 'SIGKILL');
      }, graceMs);
      const result = await exited;
      clearTimeout(timer);
      groups.delete(pid);
      return result;
    },
    async kill9() {
      killGroup(pid, 'SIGKILL');
      await exited;
      groups.delete(pid);
    },
  };
  everStarted.push(handle);
  return handle;
}

export type ProgramName = 'board' | 'agent' | 'start';

export interface StartOptions extends Omit<ProcessOptions, 'env'> {
  /** Added to this process's environment (after PANOPTES_LOG_LEVEL=debug). */
  env?: NodeJS.ProcessEnv;
  /** A command the program is started under (e.g. `unshare -m …`), ending in what execs it. */
  wrap?: string[];
}

/**
 * Starts `node dist/<program>/main.js …args` on 127.0.0.1 with a free port (--port 0 unless the
 * args say otherwise), logging at debug level, and resolves once it has printed its listening
 * line.
 */
export function startProgram(
  program: ProgramName,
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
  options: ProcessOptions & { cwd: string; env: NodeJS.ProcessEnv },
): Promise<RunningProgram> {
  return startProcess('sh', '/bin/sh', [], { ...options, input: `${line}\n` });
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
  program: ProgramName,
  args: string[],
  options: Omit<StartOptions, 'wrap' | 'input'> = {},
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
