import { HttpError } from '../../shared/http/errors.js';

/** Seconds a client is told to wait before it asks again while the store cannot write. */
const RETRY_AFTER_S = 10;

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

/** Whether an error is a refused store write (already logged by the store's health). */
export function isStoreUnavailable(error: unknown): error is StoreUnavailable {
  return error instanceof StoreUnavailable;
}
