import type { Machine, Origin } from './machine.js';
import type { ContainerProblem } from './machine-now.js';

/**
 * The spine of the board's round-2 features: each sweep (and the reports gathered since the
 * last one) closes ONE change set. The view bytes, the live feed, history, notifications and
 * /metrics all consume it; none of them reaches back into the registry for "what changed".
 */

/** A machine's state changed (recorded exactly, at the moment it happened). */
export interface Transition {
  name: string;
  origin: Origin;
  /** ms since the epoch. */
  at: number;
  state: 'up' | 'down';
  /** null: the board had not observed the machine since it started (first seen). */
  previous: 'up' | 'down' | null;
  /** Why it is down (the poll's error, "no report for N s"); null when up. */
  reason: string | null;
  /** Learnt from another board's record (of several boards sharing a store). */
  remote?: boolean;
}

/** An announced machine became late (no report for twice its interval) or on time again. */
export interface LateChange {
  name: string;
  at: number;
  late: boolean;
}

/** A session rang a bell that the board had not seen before. */
export interface BellRang {
  name: string;
  /** ms since the epoch the board saw it. */
  at: number;
  session: string;
  why: string;
  text: string;
  /** The time the agent says it rang (ISO 8601, as sent). */
  rangAt: string;
}

/** An action relayed or handed over that failed (the journal says more). */
export interface ActionFailed {
  name: string;
  at: number;
  what: string;
  action: string;
  status: number | null;
  detail: string;
}

/** A container's episode opened, changed or ended (machine-watch.ts). */
export interface ContainerChange {
  /** The machine. */
  name: string;
  at: number;
  container: string;
  /** Its problem now; null: it runs and is not unhealthy again (or, `gone`, the alert ended). */
  problem: ContainerProblem | null;
  /** The problem before this change (null: none, a new episode). */
  previous: ContainerProblem | null;
  /** ms since the epoch the episode began. */
  since: number;
  /** Its state now (exited, dead, …); null: no longer listed. */
  state: string | null;
  /** The episode ended without a recovery: the container has not been listed for a long while. */
  gone?: boolean;
}

/** A disk's SMART health check began to fail, or passes again. */
export interface DiskHealthChange {
  /** The machine. */
  name: string;
  at: number;
  device: string;
  failing: boolean;
  /** ms since the epoch it began to fail. */
  since: number;
}

/** One batch: everything that happened since the previous one, and the machines as now. */
export interface ChangeSet {
  /** 1, 2, 3, … per board process. */
  seq: number;
  /** ms since the epoch the batch closed. */
  at: number;
  /** How long the sweep that closed it took (null: no configured machines, a timed tick). */
  sweepMs: number | null;
  transitions: readonly Transition[];
  late: readonly LateChange[];
  bells: readonly BellRang[];
  actionsFailed: readonly ActionFailed[];
  containers: readonly ContainerChange[];
  diskHealth: readonly DiskHealthChange[];
  /** Names whose board record changed (state, overview, location, queued, …). */
  changed: ReadonlySet<string>;
  /** Names forgotten (or taken out of the config). */
  removed: readonly string[];
  /** Events dropped past the per-batch bound (an outsider cannot grow a batch without end). */
  dropped: number;
  /** Reports taken (answered 200) since the previous batch. */
  reports: number;
  /**
   * Every machine as of the close, live records: read them during the callback, do not keep
   * them (they change after it returns).
   */
  machines: () => IterableIterator<Readonly<Machine>>;
  /** The number of machines on the board. */
  size: number;
}

/** A consumer of change sets. It runs synchronously in the board's tick: keep it short. */
export type ChangeSetListener = (set: ChangeSet) => void;

/** Events kept per batch and kind at most. */
export const BATCH_EVENTS_MAX = 50_000;

/**
 * Gathers what happens between two closes. The registry and the board call it; `close` hands
 * the batch to every listener.
 */
export class ChangeCollector {
  private seq = 0;
  private transitions: Transition[] = [];
  private lateChanges: LateChange[] = [];
  private bells: BellRang[] = [];
  private failed: ActionFailed[] = [];
  private containers: ContainerChange[] = [];
  private diskHealth: DiskHealthChange[] = [];
  private changedNames = new Set<string>();
  private removed: string[] = [];
  private dropped = 0;
  private reports = 0;
  private readonly listeners = new Set<ChangeSetListener>();

  subscribe(listener: ChangeSetListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  transition(t: Transition): void {
    this.push(this.transitions, t);
  }

  lateChanged(c: LateChange): void {
    this.push(this.lateChanges, c);
  }

  bell(b: BellRang): void {
    this.push(this.bells, b);
  }

  actionFailed(a: ActionFailed): void {
    this.push(this.failed, a);
  }

  containerChanged(c: ContainerChange): void {
    this.push(this.containers, c);
  }

  diskHealthChanged(d: DiskHealthChange): void {
    this.push(this.diskHealth, d);
  }

  changed(name: string): void {
    this.changedNames.add(name);
  }

  /** A report was taken. */
  reportTaken(): void {
    this.reports += 1;
  }

  removedName(name: string): void {
    this.changedNames.delete(name);
    this.push(this.removed, name);
  }

  /** Closes the batch and hands it to every listener (a listener that throws is reported). */
  close(
    at: number,
    sweepMs: number | null,
    machines: () => IterableIterator<Readonly<Machine>>,
    size: number,
    onError: (error: unknown) => void,
  ): ChangeSet {
    this.seq += 1;
    const set: ChangeSet = {
      seq: this.seq,
      at,
      sweepMs,
      transitions: this.transitions,
      late: this.lateChanges,
      bells: this.bells,
      actionsFailed: this.failed,
      containers: this.containers,
      diskHealth: this.diskHealth,
      changed: this.changedNames,
      removed: this.removed,
      dropped: this.dropped,
      reports: this.reports,
      machines,
      size,
    };
    this.transitions = [];
    this.lateChanges = [];
    this.bells = [];
    this.failed = [];
    this.containers = [];
    this.diskHealth = [];
    this.changedNames = new Set();
    this.removed = [];
    this.dropped = 0;
    this.reports = 0;
    for (const listener of this.listeners) {
      try {
        listener(set);
      } catch (error) {
        onError(error);
      }
    }
    return set;
  }

  private push<T>(list: T[], item: T): void {
    if (list.length >= BATCH_EVENTS_MAX) this.dropped += 1;
    else list.push(item);
  }
}
