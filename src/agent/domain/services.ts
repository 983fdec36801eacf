import type { ActionResult } from '../../shared/wire/action.js';
import type { ActionName } from '../../shared/wire/common.js';
import type { ServiceState, ServiceView } from '../../shared/wire/overview.js';
import { type CommandService, publishedActions, type ServiceConfig } from '../service-config.js';
import type { Clock } from './clock.js';
import { type ContainerControl, containerTimeoutMs } from './container-service.js';
import { type ActionRun, ProcessSupervisor } from './process-service.js';
import { KILL_GRACE_MS, runArgv, runSummary } from './run-argv.js';
import type { Spawner } from './spawner.js';
import { StatusCache, type StatusCheck } from './status-cache.js';

/** Who asks: the operator token may do anything published, the board key only what `board` allows. */
export type Role = 'operator' | 'board';

/** The answer to an action request, as POST /api/do gives it (and a handed action reports it). */
export type ActionOutcome =
  | { status: 200; body: ActionResult }
  | { status: 403 | 404 | 409; body: { detail: string } };

export interface ServicesOptions {
  /** The machine's name, for messages. */
  machine: string;
  spawner: Spawner;
  clock: Clock;
  /** How long one status command may take before its state is unknown. */
  statusTimeoutMs?: number;
  /** How long a status answer is served before it is checked again. */
  statusTtlMs?: number;
  /** The container engine, for the services of kind container (none: they are unknown). */
  containers?: ContainerControl;
}

export const STATUS_TIMEOUT_MS = 2000;
export const STATUS_TTL_MS = 2000;

/**
 * The published services of this machine: their states, and the one path by which any action on
 * them runs, with the access policy, the "one action at a time" rule and the time-outs.
 */
export class Services {
  private readonly configs = new Map<string, ServiceConfig>();
  private readonly processes = new Map<string, ProcessSupervisor>();
  private readonly busy = new Set<string>();
  private readonly status: StatusCache;
  private readonly machine: string;
  private readonly spawner: Spawner;
  private readonly clock: Clock;
  private readonly containers: ContainerControl | null;

  constructor(configs: readonly ServiceConfig[], options: ServicesOptions) {
    this.machine = options.machine;
    this.spawner = options.spawner;
    this.clock = options.clock;
    this.containers = options.containers ?? null;
    const timeoutMs = options.statusTimeoutMs ?? STATUS_TIMEOUT_MS;
    this.status = new StatusCache(
      [],
      (check) => this.check(check, timeoutMs),
      this.clock,
      options.statusTtlMs ?? STATUS_TTL_MS,
    );
    this.reconfigure(configs);
  }

  /**
   * Publishes exactly `configs` (at start and on a reload). An action already running finishes
   * as it began. A process service still running keeps running (a changed `run` applies at its
   * next start); one no longer published is returned, for the caller to stop.
   */
  reconfigure(configs: readonly ServiceConfig[]): { removed: ProcessSupervisor[] } {
    const wanted = new Map(configs.map((c) => [c.name, c]));
    const removed: ProcessSupervisor[] = [];
    for (const [name, supervisor] of this.processes) {
      if (wanted.get(name)?.kind === 'process') continue;
      this.processes.delete(name);
      removed.push(supervisor);
    }
    this.configs.clear();
    const checks: StatusCheck[] = [];
    for (const config of configs) {
      this.configs.set(config.name, config);
      if (config.kind === 'process') {
        const supervisor = this.processes.get(config.name);
        if (supervisor === undefined) {
          this.processes.set(config.name, new ProcessSupervisor(config, this.spawner, this.clock));
        } else {
          supervisor.reconfigure(config);
        }
      } else if (config.kind === 'command' && config.status !== null) {
        checks.push({ name: config.name, argv: config.status, cwd: config.cwd, env: config.env });
      }
    }
    this.status.setChecks(checks);
    this.containers?.publish(configs.flatMap((c) => (c.kind === 'container' ? [c.container] : [])));
    return { removed };
  }

  /** Every published service with its state, never waiting for a status command. */
  views(): ServiceView[] {
    return [...this.configs.values()].map((config) => {
      const view: ServiceView = {
        name: config.name,
        kind: config.kind,
        state: this.stateOf(config),
        actions: publishedActions(config),
        board: [...config.board],
        busy: this.busy.has(config.name),
        timeout_s: actionTimeoutMs(config) / 1000,
      };
      if (config.kind === 'container') view.container = config.container;
      const supervisor = this.processes.get(config.name);
      if (supervisor !== undefined) view.last_exit = supervisor.lastExit;
      return view;
    });
  }

  /** Runs every status command now (at start, so the first overview already knows). */
  refreshStatus(): Promise<void> {
    return this.status.refresh();
  }

  /** Runs an action if `role` may ask for it and the service is free; the answer of /api/do. */
  async act(what: string, action: ActionName, role: Role): Promise<ActionOutcome> {
    const config = this.configs.get(what);
    if (config === undefined) {
      return refuse(404, `'${what}' is not a service published on ${this.machine}`);
    }
    if (!publishedActions(config).includes(action)) {
      return refuse(404, `'${what}' on ${this.machine} does not publish ${action}`);
    }
    if (role === 'board' && !config.board.includes(action)) {
      return refuse(403, `the board may not ${action} '${what}' on ${this.machine}`);
    }
    if (this.busy.has(what)) {
      return refuse(409, `'${what}' is busy: another action on it is still running`);
    }
    const supervisor = this.processes.get(what);
    if (action === 'start' && supervisor?.running) {
      return refuse(409, `'${what}' is already running`);
    }
    this.busy.add(what);
    try {
      let run: ActionRun;
      if (supervisor !== undefined) {
        run = await (action === 'start' ? supervisor.start() : supervisor.stop());
      } else if (config.kind === 'container') {
        run =
          this.containers === null
            ? { ok: false, exit_code: null, output: 'no container engine on this agent' }
            : await this.containers.act(config, action);
      } else {
        run = await this.runCommand(config as CommandService, action);
      }
      return { status: 200, body: { what, action, ...run } };
    } finally {
      this.busy.delete(what);
      this.status.invalidate(what);
      void this.status.refreshOne(what);
    }
  }

  /** Stops every running process service (SIGTERM, then SIGKILL after its grace). */
  async stopAll(): Promise<void> {
    await Promise.all([...this.processes.values()].filter((p) => p.running).map((p) => p.stop()));
  }

  private stateOf(config: ServiceConfig): ServiceState {
    const supervisor = this.processes.get(config.name);
    if (supervisor !== undefined) return supervisor.running ? 'running' : 'stopped';
    if (config.kind === 'container') {
      return this.containers?.serviceState(config.container) ?? 'unknown';
    }
    return this.status.state(config.name) ?? 'unknown';
  }

  private async runCommand(config: CommandService, action: ActionName): Promise<ActionRun> {
    const argv = config[action];
    if (argv === null) throw new Error(`${config.name} does not publish ${action}`);
    const result = await runArgv(this.spawner, this.clock, argv, {
      cwd: config.cwd,
      env: config.env,
      timeoutMs: config.timeoutMs,
    });
    const ok = result.kind === 'exited' && !result.timedOut && result.exit.code === 0;
    const exitCode = result.kind === 'exited' ? result.exit.code : null;
    return { ok, exit_code: exitCode, output: runSummary(result, config.timeoutMs) };
  }

  private async check(check: StatusCheck, timeoutMs: number): Promise<ServiceState> {
    const result = await runArgv(this.spawner, this.clock, check.argv, {
      cwd: check.cwd,
      env: check.env,
      timeoutMs,
      killGraceMs: 1000,
    });
    if (result.kind === 'failed' || result.timedOut || result.exit.code === null) return 'unknown';
    return result.exit.code === 0 ? 'running' : 'stopped';
  }
}

/**
 * The longest an action on the service may take before the agent answers (the overview's
 * `timeout_s`, which the board waits): a command's time-out and the grace after it, a process's
 * or a container's stop grace and what follows it.
 */
export function actionTimeoutMs(config: ServiceConfig): number {
  if (config.kind === 'command') return config.timeoutMs + KILL_GRACE_MS;
  if (config.kind === 'process') return config.stopGraceMs + KILL_GRACE_MS;
  return containerTimeoutMs(config);
}

function refuse(status: 403 | 404 | 409, detail: string): ActionOutcome {
  return { status, body: { detail } };
}
