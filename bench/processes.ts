import { type ChildProcess, fork, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import {
  killEverything,
  ROOT,
  type RunningProgram,
  startProcess,
  trackChild,
} from '../harness/processes.js';
import {
  type AnnounceAnswer,
  type AnnounceRequest,
  JOIN_GRACE_INTERVALS,
  SETTLE_INTERVALS,
  type ServeAnswer,
  type ServeRequest,
  type SimAnswer,
  type SimRequest,
  type TlsReportAnswer,
  type TlsReportRequest,
} from './fleet/protocol.js';

export { killEverything, ROOT };

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

const CLOCK_TICKS = 100;

/** A program the bench started, in its own process group. */
export type Program = RunningProgram;

/**
 * Starts `node <script> …args` and waits for its "listening at URL" line. Output is kept
 * (the last 200 lines) for error messages; `stop()` gives it 10 s before SIGKILL.
 */
export function startScript(
  name: string,
  script: string,
  args: string[],
  options: { nodeArgs?: string[]; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<Program> {
  return startProcess(name, process.execPath, [...(options.nodeArgs ?? []), script, ...args], {
    env: { ...process.env, ...options.env },
    timeoutMs: options.timeoutMs ?? 60_000,
    keepLines: 200,
    stopGraceMs: 10_000,
  });
}

/** The board as users start it: `node dist/board/main.js --config DIR --port 0`. */
export function startBoard(
  configDir: string,
  nodeArgs: string[] = [],
  script = `${ROOT}dist/board/main.js`,
): Promise<Program> {
  return startScript(
    'board',
    script,
    ['--config', configDir, '--port', '0', '--host', '127.0.0.1'],
    { nodeArgs },
  );
}

/**
 * An agent as users start it: `config` (its `name` names the file) written to `<dir>/NAME.yaml`,
 * then `node dist/agent/main.js --config FILE --port 0`, with `env` added to the bench's.
 */
export function startAgent(
  dir: string,
  config: { name: string } & Record<string, unknown>,
  env: NodeJS.ProcessEnv = {},
): Promise<Program> {
  const file = join(dir, `${config.name}.yaml`);
  writeFileSync(file, stringify(config));
  return startScript(
    `agent ${config.name}`,
    `${ROOT}dist/agent/main.js`,
    ['--config', file, '--port', '0', '--host', '127.0.0.1'],
    { env },
  );
}

/** A bare node:http baseline server (see bare.ts), with `nodeArgs` to node. */
export function startBare(args: string[], nodeArgs: string[] = []): Promise<Program> {
  return startScript('bare server', `${ROOT}dist/bench/bare.js`, args, { nodeArgs });
}

/** The sweep baseline (see bare-sweep.ts): a bare client's cold and warm sweeps. */
export interface BareSweeps {
  /** ms */
  cold: number;
  /** ms, each warm sweep */
  warm: number[];
  /** How many machines answered in each sweep, the cold one first. */
  answered: number[];
  /** Its peak RSS, MB (as the board's sampler counts them: VmRSS kB / 1024). */
  peakRssMb: number;
}

export async function bareSweeps(
  machinesFile: string,
  options: { sweeps: number; timeoutMs: number; concurrency: number; client?: 'net' | 'undici' },
): Promise<BareSweeps> {
  const child = spawn(
    process.execPath,
    [
      `${ROOT}dist/bench/bare-sweep.js`,
      ...['--machines', machinesFile, '--sweeps', String(options.sweeps)],
      ...['--timeout-ms', String(options.timeoutMs), '--concurrency', String(options.concurrency)],
      ...['--client', options.client ?? 'net'],
    ],
    { cwd: ROOT, detached: true, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  trackChild(child);
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  // 'close', not 'exit': the output is read to its end only by then.
  const [code] = (await once(child, 'close')) as [number | null];
  if (code !== 0) throw new Error(`bare sweep exited (${code})`);
  return JSON.parse(output) as BareSweeps;
}

/** The fleet simulator, a child over IPC. */
export class Fleet {
  private nextId = 1;
  private readonly waiting = new Map<number, (answer: SimAnswer) => void>();

  private constructor(private readonly child: ChildProcess) {
    child.on('message', (message: SimAnswer) => {
      const done = this.waiting.get(message.id);
      this.waiting.delete(message.id);
      done?.(message);
    });
  }

  get pid(): number {
    return this.child.pid ?? 0;
  }

  static async start(): Promise<Fleet> {
    const child = fork(`${ROOT}dist/bench/fleet/sim.js`, [], {
      cwd: ROOT,
      detached: true,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    trackChild(child);
    await new Promise<void>((resolve, reject) => {
      child.once('message', () => resolve());
      child.once('exit', (code) => reject(new Error(`fleet simulator exited (${code})`)));
    });
    return new Fleet(child);
  }

  /** Starts serving simulated agents. */
  async serve(request: Omit<ServeRequest, 'id' | 'type'>): Promise<ServeAnswer> {
    const answer = await this.ask({ ...request, type: 'serve' }, 120_000);
    if (answer.type !== 'serve') throw new Error(`fleet simulator: unexpected ${answer.type}`);
    return answer;
  }

  /** Runs announcing machines for `durationMs` and reports what happened. */
  async announce(request: Omit<AnnounceRequest, 'id' | 'type'>): Promise<AnnounceAnswer> {
    const answer = await this.ask({ ...request, type: 'announce' }, request.durationMs + 60_000);
    if (answer.type !== 'announce') throw new Error(`fleet simulator: unexpected ${answer.type}`);
    return answer;
  }

  /** Agents reporting over TLS on kept connections (see tls-reporters.ts). */
  async reportOverTls(request: Omit<TlsReportRequest, 'id' | 'type'>): Promise<TlsReportAnswer> {
    // Settling after the ramp, and the window may wait for the last join past that.
    const total =
      request.rampMs +
      ((request.settleIntervals ?? SETTLE_INTERVALS) + JOIN_GRACE_INTERVALS) * request.intervalMs +
      request.measureMs;
    const answer = await this.ask({ ...request, type: 'tls-report' }, total + 60_000);
    if (answer.type !== 'tls-report') throw new Error(`fleet simulator: unexpected ${answer.type}`);
    return answer;
  }

  private async ask(
    request: DistributiveOmit<SimRequest, 'id'>,
    timeoutMs: number,
  ): Promise<SimAnswer> {
    const id = this.nextId++;
    const answer = await new Promise<SimAnswer>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        reject(new Error(`fleet simulator: no answer to ${request.type} in time`));
      }, timeoutMs);
      this.waiting.set(id, (a) => {
        clearTimeout(timer);
        resolve(a);
      });
      this.child.send({ ...request, id });
    });
    if (answer.type === 'error') throw new Error(`fleet simulator: ${answer.message}`);
    return answer;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = once(this.child, 'exit');
    this.child.disconnect();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }
}

/** CPU seconds (user + system) a process has used so far, from /proc/<pid>/stat. */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces) start after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return (utime + stime) / CLOCK_TICKS;
}

/** Resident memory of a process in MB, from /proc/<pid>/status VmRSS. */
export function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /VmRSS:\s+(\d+) kB/.exec(status);
  return match?.[1] !== undefined ? Number(match[1]) / 1024 : Number.NaN;
}

/** The soft limit on open files of a process (what `ulimit -n` says), from /proc/<pid>/limits. */
export function fdLimit(pid: number | 'self' = 'self'): number {
  const limits = readFileSync(`/proc/${pid}/limits`, 'utf8');
  const match = /Max open files\s+(\d+|unlimited)/.exec(limits);
  return match?.[1] === undefined || match[1] === 'unlimited'
    ? Number.POSITIVE_INFINITY
    : Number(match[1]);
}
