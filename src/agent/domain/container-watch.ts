import {
  CONTAINERS_MAX,
  type ContainerState,
  type ContainerView,
} from '../../shared/wire/machine-now.js';
import type { ServiceState } from '../../shared/wire/overview.js';
import type { Clock } from './clock.js';
import {
  CpuSamples,
  containerView,
  type EngineAnswerError,
  type Inspected,
  keepMost,
  keepRank,
  type ListedContainer,
  names,
  parseInspect,
  parseList,
  parseStats,
  type StatsSample,
} from './containers.js';
import type { SourceRead, SourceReader } from './source-watch.js';

/** One call to the engine: its answer, or why there is none. */
export type EngineCall<T> =
  | { ok: true; value: T }
  | {
      ok: false;
      /** absent: no socket; timeout: no answer in time; unreachable: the socket refused or broke; refused: an HTTP error. */
      kind: 'absent' | 'timeout' | 'unreachable' | 'refused';
      status?: number;
      reason: string;
    };

/**
 * The Docker Engine API as the agent uses it (io/container-engine.ts); each call gives up after
 * its `timeoutMs` and never rejects. Only these calls exist: list, inspect, stats, start, stop.
 */
export interface ContainerEngine {
  list(timeoutMs: number): Promise<EngineCall<unknown>>;
  inspect(id: string, timeoutMs: number): Promise<EngineCall<unknown>>;
  stats(id: string, timeoutMs: number): Promise<EngineCall<unknown>>;
  /** `already`: the engine answered 304 (it was already running). */
  start(container: string, timeoutMs: number): Promise<EngineCall<'done' | 'already'>>;
  /** Stops with `graceS` seconds between SIGTERM and SIGKILL; `already`: it was not running. */
  stop(
    container: string,
    graceS: number,
    timeoutMs: number,
  ): Promise<EngineCall<'done' | 'already'>>;
  /** Ends the calls in flight (at shutdown). */
  cancel(): void;
}

/** Containers asked about at once in one read. */
export const ENGINE_CONCURRENCY = 8;

/** Every this many reads a container is inspected again though the list shows no change. */
export const REINSPECT_AFTER = 10;
/** Seconds between the engine's clock and ours, and its status text and our read, allowed for. */
const SINCE_SLACK_S = 3;

interface Known {
  details: Inspected;
  /** The list's statusKey when it was inspected. */
  key: string;
  /** Reads since that inspect. */
  reads: number;
  /** When a read last reached it (inspected, or found unchanged). */
  reachedAt: number;
}

/**
 * The containers source: lists the engine's containers, inspects each (health, start time,
 * restarts) and takes one stats sample of each running one, a few at a time, the whole read
 * within its time-out. A read the time-out cuts short (hundreds of containers on a slow engine)
 * still lists them all: those it did not reach with what their last inspect said and no CPU or
 * memory; the next read starts with them. Only an engine that answered nothing but the list is
 * a failure. It also keeps each container's state from the last read, which the published
 * container services show.
 */
export class ContainerWatch implements SourceReader<ContainerView[]> {
  private readonly cpu = new CpuSamples();
  /** Each container's last inspect, and when a read last reached it. */
  private readonly known = new Map<string, Known>();
  /** State by name and by full id, from the last read; null while the engine is not read. */
  private states: Map<string, ContainerState> | null = null;
  private published: readonly string[] = [];

  constructor(
    private readonly engine: ContainerEngine,
    private readonly clock: Clock,
    /** The machine's CPU count: a share is of all of them. */
    private readonly cpus: () => number,
  ) {}

  /** The containers of the published services (kept first when not all can be listed). */
  publish(containers: readonly string[]): void {
    this.published = [...containers];
  }

  /** A published container's service state: running, stopped, or unknown (no engine, no such container). */
  serviceState(container: string): ServiceState {
    const state = this.stateOf(container);
    if (state === null) return 'unknown';
    return state === 'running' ? 'running' : 'stopped';
  }

  /** Asks the engine for one container's state now (after an action on it). */
  async refresh(container: string, timeoutMs: number): Promise<void> {
    const answer = await this.engine.inspect(container, timeoutMs);
    if (this.states === null) return;
    if (answer.ok) {
      const state = parseInspect(answer.value)?.state;
      if (state !== null && state !== undefined) this.states.set(container, state);
    } else if (answer.kind === 'refused' && answer.status === 404) {
      this.states.delete(container);
    }
  }

  async read(timeoutMs: number): Promise<SourceRead<ContainerView[]>> {
    const deadline = this.clock.now() + timeoutMs;
    const left = () => deadline - this.clock.now();
    const listed = await this.engine.list(timeoutMs);
    if (!listed.ok) {
      this.states = null;
      if (listed.kind === 'absent') return { kind: 'absent' };
      return { kind: 'failed', reason: listed.reason };
    }
    let all: ListedContainer[];
    try {
      all = parseList(listed.value);
    } catch (error) {
      this.states = null;
      return { kind: 'failed', reason: (error as EngineAnswerError).message };
    }
    const states = new Map<string, ContainerState>();
    for (const c of all) {
      states.set(c.name, c.state);
      states.set(c.id, c.state);
    }
    const kept = keepMost(
      all,
      (c) => keepRank({ ...c, unhealthy: c.unhealthyHint }, this.published),
      CONTAINERS_MAX,
    );
    // Those reached longest ago go first: a read its time-out cut short goes on, at the next
    // one, with the containers it did not reach.
    const order = [...kept].sort(
      (a, b) => (this.known.get(a.id)?.reachedAt ?? 0) - (this.known.get(b.id)?.reachedAt ?? 0),
    );
    let outOfTime = false;
    let answered = 0;
    // Once a read: the machine's CPUs are costly to ask (os.cpus() reads /proc).
    const cpus = this.cpus();
    const views = await inBatches(order, ENGINE_CONCURRENCY, async (c) => {
      const known = this.known.get(c.id);
      let fresh: Inspected | null = null;
      // This container's calls not all made or answered in time.
      let missed = false;
      if (known === undefined || this.mustInspect(c, known)) {
        if (!outOfTime && left() > 0) {
          const answer = await this.engine.inspect(c.id, left());
          if (answer.ok) {
            answered += 1;
            fresh = parseInspect(answer.value);
          } else if (answer.status === 404) {
            // Removed between the list and now: not listed.
            return null;
          } else if (answer.kind === 'timeout') {
            outOfTime = true;
            missed = true;
          }
        } else {
          outOfTime = true;
          missed = true;
        }
      }
      let entry = known;
      if (fresh !== null) {
        // A new one starts part-way through the count: the many first seen together (at the
        // agent's start) are then inspected again over several reads, not all in one.
        const reads = known === undefined ? this.known.size % REINSPECT_AFTER : 0;
        entry = { details: fresh, key: c.statusKey, reads, reachedAt: 0 };
        this.known.set(c.id, entry);
      } else if (known !== undefined && !missed) {
        // Not asked (nothing changed that the list shows): its last inspect still holds.
        known.reads += 1;
      }
      // Not asked, or not answered: what the last inspect said, but the state the list says now.
      const details = fresh ?? (entry === undefined ? null : { ...entry.details, state: c.state });
      const state = details?.state ?? c.state;
      let cpu: number | null = null;
      let stats: StatsSample | null = null;
      if ((state === 'running' || state === 'paused') && !missed) {
        const sampled = outOfTime || left() <= 0 ? null : await this.engine.stats(c.id, left());
        if (sampled === null || (!sampled.ok && sampled.kind === 'timeout')) {
          outOfTime = true;
          missed = true;
        } else {
          if (sampled.ok) answered += 1;
          stats = sampled.ok ? parseStats(sampled.value) : null;
          const ns = state === 'running' ? (stats?.cpuTotalNs ?? null) : null;
          cpu = this.cpu.share(c.id, ns, stats?.readAt ?? this.clock.now(), cpus);
        }
      }
      if (entry !== undefined && !missed) entry.reachedAt = this.clock.now();
      states.set(c.name, state);
      states.set(c.id, state);
      return containerView(c, details, cpu, stats);
    });
    if (outOfTime && answered === 0) {
      this.states = null;
      return {
        kind: 'failed',
        reason: `the container engine did not answer within ${timeoutMs} ms`,
      };
    }
    this.states = states;
    const present = new Set(all.map((c) => c.id));
    for (const id of this.known.keys()) if (!present.has(id)) this.known.delete(id);
    this.cpu.keepOnly(present);
    const listedViews = views.filter((v): v is ContainerView => v !== null);
    listedViews.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const omitted = all.length - kept.length;
    return {
      kind: 'ok',
      value: listedViews,
      ...(omitted > 0 ? { also: { containers_omitted: omitted } } : {}),
    };
  }

  cancel(): void {
    this.engine.cancel();
  }

  /**
   * Whether the list says something happened since the last inspect: its state or status text
   * changed (durations aside), it has a health check the status text does not show (Podman's),
   * its status counts from a time later than the last inspect's (restarted or stopped since),
   * or its last inspect is REINSPECT_AFTER reads old.
   */
  private mustInspect(c: ListedContainer, known: Known): boolean {
    if (known.key !== c.statusKey || known.reads + 1 >= REINSPECT_AFTER) return true;
    const { health, startedAt, finishedMs } = known.details;
    if (health !== null && !c.healthMarked) return true;
    const since =
      c.state === 'running' || c.state === 'paused' ? Date.parse(startedAt ?? '') : finishedMs;
    if (c.sinceMaxS === null || since === null || !Number.isFinite(since)) return false;
    return this.clock.now() - since > (c.sinceMaxS + SINCE_SLACK_S) * 1000;
  }

  private stateOf(container: string): ContainerState | null {
    if (this.states === null) return null;
    const direct = this.states.get(container);
    if (direct !== undefined) return direct;
    // By an id prefix: only the full ids are tried (the names are keys too).
    for (const [key, state] of this.states) {
      if (key.length === 64 && names({ id: key, name: '' }, container)) return state;
    }
    return null;
  }
}

/** Maps `items` through `fn`, at most `limit` at a time, keeping their order. */
async function inBatches<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next;
      next += 1;
      out[i] = await fn(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
