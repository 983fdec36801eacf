import type { ActionName } from '../../shared/wire/common.js';
import type { ServiceState } from '../../shared/wire/overview.js';
import type { ContainerService } from '../service-config.js';
import type { ContainerEngine, ContainerWatch } from './container-watch.js';
import type { ActionRun } from './process-service.js';

/** What the engine may take beyond `stop_grace` to stop (kill, clean up) or to start a container. */
export const ENGINE_MARGIN_MS = 10_000;
/** How long the state of a container is asked for after an action on it. */
const REFRESH_TIMEOUT_MS = 2000;

/** The longest a start or stop of a container service may take before the agent answers. */
export function containerTimeoutMs(config: ContainerService): number {
  return config.stopGraceMs + ENGINE_MARGIN_MS;
}

/**
 * The published containers: their states (from the containers source) and their start and stop,
 * which are the engine's own (`POST /containers/{name}/start`, `…/stop?t=stop_grace`). Nothing
 * else is ever asked of the engine: no container is created, removed or run a command in.
 */
export class ContainerControl {
  constructor(
    private readonly engine: ContainerEngine,
    private readonly watch: ContainerWatch,
  ) {}

  /** Tells the source which containers are published (a reload may change them). */
  publish(containers: readonly string[]): void {
    this.watch.publish(containers);
  }

  serviceState(container: string): ServiceState {
    return this.watch.serviceState(container);
  }

  /** Starts or stops the container; "already running / not running" (HTTP 304) is success. */
  async act(config: ContainerService, action: ActionName): Promise<ActionRun> {
    // The action and the look at the state after it, within the time-out the service states.
    const timeoutMs = containerTimeoutMs(config) - REFRESH_TIMEOUT_MS;
    const answer =
      action === 'start'
        ? await this.engine.start(config.container, timeoutMs)
        : await this.engine.stop(config.container, config.stopGraceMs / 1000, timeoutMs);
    // The service's state follows at once, not at the next read of every container.
    if (answer.ok || answer.kind === 'refused') {
      await this.watch.refresh(config.container, REFRESH_TIMEOUT_MS);
    }
    const what = `container ${config.container}`;
    if (answer.ok) {
      const done = action === 'start' ? 'started' : 'stopped';
      const already = action === 'start' ? 'was already running' : 'was not running';
      return {
        ok: true,
        exit_code: null,
        output: `${what} ${answer.value === 'done' ? done : already}`,
      };
    }
    if (answer.kind === 'refused' && answer.status === 404) {
      return { ok: false, exit_code: null, output: `no ${what} on the engine` };
    }
    return { ok: false, exit_code: null, output: `${what}: ${answer.reason}` };
  }
}
