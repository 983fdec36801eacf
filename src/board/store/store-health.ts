import { HttpError } from '../../shared/http/errors.js';
import type { Logger } from '../../shared/logger.js';

/** Seconds a client is told to wait before it asks again while the store cannot write. */
const RETRY_AFTER_S = 10;
/**
 * How long writes must work before the store counts as back. A nearly full disk takes some
 * writes (a file's last page has room) and refuses others: without this, it logged each flap.
 */
export const RECOVERED_AFTER_MS = 5000;

/**
 * A write the store could not make: answered 503 (with Retry-After), never 500, and never
 * acknowledged. The detail says why in words (`no space left on device`), without a path.
 */
export class StoreUnavailable extends HttpError {
  constructor(why: string) {
    super(503, `Cannot store this now (store unavailable: ${why}); try again later`, {
      'retry-after': String(RETRY_AFTER_S),
    });
    this.name = 'StoreUnavailable';
  }
}

/** Whether an error is a refused store write (already logged by the StoreHealth). */
export function isStoreUnavailable(error: unknown): error is StoreUnavailable {
  return error instanceof StoreUnavailable;
}

/** Why a write failed, in a few words a client may read (no path, no secret). */
export function writeFailure(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  if (code === 'ENOSPC' || code === 'SQLITE_FULL') return 'no space left on device';
  if (code === 'EDQUOT') return 'disk quota exceeded';
  if (code === 'EROFS') return 'read-only file system';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'EIO') return 'input/output error';
  const message = error instanceof Error ? error.message : '';
  if (/disk is full|no space/i.test(message)) return 'no space left on device';
  return 'a write failed';
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

  /** Runs a write; a failure is counted and turned into StoreUnavailable. */
  async guard<T>(what: string, write: () => Promise<T>): Promise<T> {
    let result: T;
    try {
      result = await write();
    } catch (error) {
      if (isStoreUnavailable(error)) throw error;
      throw this.failed(what, error);
    }
    this.succeeded();
    return result;
  }

  /** Notes a failed write (logged only if it is the first since the store last worked). */
  failed(what: string, error: unknown): StoreUnavailable {
    const why = writeFailure(error);
    this.failures += 1;
    this.lastFailure = this.now();
    if (this.failingSince === null) {
      this.failingSince = this.now();
      this.why = why;
      this.logger.error(
        { store: what, err: error },
        `store cannot write (${why}): what must be stored is refused with 503 until it can`,
      );
    }
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
}
