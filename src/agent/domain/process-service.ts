import type { ProcessService } from '../service-config.js';
import type { Clock } from './clock.js';
import { OutputTail } from './output-tail.js';
import { appendNote, spawnFailure } from './run-argv.js';
import { type Child, describeExit, type Exit, type Spawner } from './spawner.js';

/** What an action on a service did, before it becomes an ActionResult. */
export interface ActionRun {
  ok: boolean;
  exit_code: number | null;
  output: string;
}

/** How the last run of a process service ended. */
export interface LastExit {
  code: number | null;
  signal: string | null;
  at: string;
}

/**
 * A process service: the agent runs its argv as a child and supervises it. It restarts nothing on
 * its own; stop sends SIGTERM to the child's process group and SIGKILL after the grace period.
 */
export class ProcessSupervisor {
  private child: Child | null = null;
  private tail = new OutputTail();
  private last: LastExit | null = null;

  constructor(
    private config: ProcessService,
    private readonly spawner: Spawner,
    private readonly clock: Clock,
  ) {}

  get running(): boolean {
    return this.child !== null;
  }

  /** How the previous run ended, if one did. */
  get lastExit(): LastExit | null {
    return this.last;
  }

  /** Takes a reloaded config: a running child keeps running; the next start uses `config`. */
  reconfigure(config: ProcessService): void {
    this.config = config;
  }

  /** Starts the child. The caller makes sure it is not running. */
  async start(): Promise<ActionRun> {
    const tail = new OutputTail();
    const child = this.spawner({
      argv: this.config.run,
      cwd: this.config.cwd,
      env: this.config.env,
      onOutput: (chunk) => tail.write(chunk),
    });
    try {
      await child.started;
    } catch (error) {
      return { ok: false, exit_code: null, output: spawnFailure(this.config.run, error) };
    }
    this.child = child;
    this.tail = tail;
    void child.exited.then((exit) => this.ended(child, exit));
    return { ok: true, exit_code: null, output: `started (pid ${child.pid ?? 'unknown'})` };
  }

  /** Stops the child: SIGTERM, then SIGKILL after the grace period. Not running is not an error. */
  async stop(): Promise<ActionRun> {
    const child = this.child;
    if (child === null) {
      const previous = this.last === null ? '' : ` (last run ended: ${describeExit(this.last)})`;
      return { ok: true, exit_code: null, output: `not running${previous}` };
    }
    let killed = false;
    child.kill('SIGTERM');
    const cancel = this.clock.setTimeout(() => {
      killed = true;
      child.kill('SIGKILL');
    }, this.config.stopGraceMs);
    const exit = await child.exited;
    cancel();
    const how = killed
      ? `did not stop within ${this.config.stopGraceMs / 1000} s of SIGTERM; ${describeExit(exit)}`
      : `stopped: ${describeExit(exit)}`;
    return { ok: true, exit_code: exit.code, output: appendNote(this.tail.text(), `[${how}]`) };
  }

  private ended(child: Child, exit: Exit): void {
    if (this.child !== child) return;
    this.child = null;
    this.last = {
      code: exit.code,
      signal: exit.signal,
      at: new Date(this.clock.now()).toISOString(),
    };
  }
}
