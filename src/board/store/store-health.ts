import type { Logger } from '../../shared/logger.js';
import { isStoreUnavailable, StoreUnavailable } from '../domain/store-unavailable.js';
import { postgresFailure } from './postgres/failure.js';

/**
 * How long writes must work before the store counts as back. A nearly full disk takes some
 * writes (a file's last page has room) and refuses others: without this, it logged each flap.
 */
export const RECOVERED_AFTER_MS = 5000;

/** Why a write failed, in a few words a client may read (no path, no secret). */
export function writeFailure(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  if (code === 'ENOSPC' || code === 'SQLITE_FULL') return 'no space left on device';
  if (code === 'EDQUOT') return 'disk quota exceeded';
  if (code === 'EROFS' || code === 'SQLITE_READONLY') return 'read-only file system';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'EIO' || code === 'SQLITE_IOERR') return 'input/output error';
  const message = error instanceof Error ? error.message : '';
  if (/disk is full|no space/i.test(message)) return 'no space left on device';
  return postgresFailure(error);
}

/**
 * Whether the board's store can write, and the two log lines an operator needs about it: one
 * when writes start failing, one when they work again, with how many failed in between. Each
 * failed write is counted, not logged (a full disk used to log every sweep's failure).
 */
export class StoreHealth {
  private failingSince: number | null = null;
  private lastFailure = 0;
  private failures = 0;
  private why = '';
  /** Whether the last probe failed: writes are then refused at once, not tried. */
  private down = false;
  private probing: NodeJS.Timeout | null = null;
  private probeDelay = PROBE_FIRST_MS;
  private probe: (() => Promise<void>) | null = null;
  private closed = false;
  private waiters: (() => void)[] = [];
  /** Told how long each write that worked took, in seconds (/metrics). */
  onWrite: (seconds: number) => void = () => undefined;

  constructor(
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether writes work (false from a failure until they have worked for a while again). */
  get available(): boolean {
    return this.failingSince === null;
  }

  /** Failed writes since the store last worked (0 while it works). */
  get failedWrites(): number {
    return this.failures;
  }

  /**
   * What is tried, with backoff (0.5 s doubling to 10 s), while the store is failing: it writes
   * what waits in buffers and proves the store with a small write. Its success ends a refusal.
   */
  setProbe(probe: () => Promise<void>): void {
    this.probe = probe;
  }

  /** Runs a write; a failure is counted and turned into StoreUnavailable. */
  async guard<T>(what: string, write: () => Promise<T>): Promise<T> {
    if (this.down) throw this.failed(what, new Error(this.why));
    const started = performance.now();
    let result: T;
    try {
      result = await write();
    } catch (error) {
      if (isStoreUnavailable(error)) throw error;
      throw this.failed(what, error);
    }
    this.onWrite((performance.now() - started) / 1000);
    this.succeeded();
    return result;
  }

  /** Notes a failed write (logged only if it is the first since the store last worked). */
  failed(what: string, error: unknown): StoreUnavailable {
    const why = this.down ? this.why : writeFailure(error);
    this.failures += 1;
    this.lastFailure = this.now();
    if (this.failingSince === null) {
      this.failingSince = this.now();
      this.why = why;
      // The error's own text may name a file; it never holds a password (see postgresFailure).
      this.logger.error(
        { store: what, why },
        `store cannot write (${why}): what must be stored is refused with 503 until it can`,
      );
    }
    this.scheduleProbe();
    return new StoreUnavailable(why);
  }

  /** Notes a write that worked (the store is back once they have worked for a while). */
  succeeded(): void {
    if (this.failingSince === null) return;
    if (this.now() - this.lastFailure < RECOVERED_AFTER_MS) return;
    const seconds = Math.round((this.now() - this.failingSince) / 1000);
    this.logger.warn(
      { failed_writes: this.failures, seconds },
      `store writes again, after ${this.failures} failed write(s) in ${seconds} s (${this.why})`,
    );
    this.failingSince = null;
    this.failures = 0;
  }

  /** Resolves once a probe has proved the store again (at once when stopped or unprobed). */
  whenBack(): Promise<void> {
    if (this.closed || this.probe === null) return Promise.resolve();
    return new Promise((resolve) => {
      this.waiters.push(resolve);
      this.scheduleProbe();
    });
  }

  /** Stops probing (at shutdown); whoever waits for the store goes on. */
  close(): void {
    this.closed = true;
    if (this.probing !== null) clearTimeout(this.probing);
    this.probing = null;
    this.wake();
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  private scheduleProbe(): void {
    if (this.probing !== null || this.probe === null || this.closed) return;
    const probe = this.probe;
    this.probing = setTimeout(() => {
      probe().then(
        () => {
          this.probing = null;
          this.down = false;
          this.probeDelay = PROBE_FIRST_MS;
          this.succeeded();
          this.wake();
          // Until it counts as back, keep proving it (a nearly full disk flaps).
          if (this.failingSince !== null) this.scheduleProbe();
        },
        (error: unknown) => {
          this.probing = null;
          this.down = true;
          this.failures += 1;
          this.lastFailure = this.now();
          if (this.failingSince === null) this.failed('probe', error);
          this.probeDelay = Math.min(this.probeDelay * 2, PROBE_MAX_MS);
          this.scheduleProbe();
        },
      );
    }, this.probeDelay);
    this.probing.unref();
  }
}

/** Probe backoff: first wait, and the longest. */
const PROBE_FIRST_MS = 500;
const PROBE_MAX_MS = 10_000;
