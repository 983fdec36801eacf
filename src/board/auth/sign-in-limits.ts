import { FailureLimiter } from '../../shared/http/failure-limiter.js';

/** Failed sign-ins a name may have in a minute (whoever tries it, from wherever). */
export const NAME_FAILURES = 5;
/** Failed sign-ins an address may have in a minute (whatever names it tries). */
export const ADDRESS_FAILURES = 20;

/**
 * Failed sign-ins counted per name and per address (DESIGN 15): guessing one person's password
 * from many addresses, or many people's from one, is slowed alike. Per board: a cluster of N
 * boards lets N times as many through, still a handful a minute.
 */
export class SignInLimits {
  private readonly names: FailureLimiter;
  private readonly addresses: FailureLimiter;

  constructor(now: () => number) {
    this.names = new FailureLimiter(now, NAME_FAILURES);
    this.addresses = new FailureLimiter(now, ADDRESS_FAILURES);
  }

  /** Seconds until this name from this address may try again, or 0 if it may now. */
  blockedFor(address: string, name: string | null): number {
    const byName = name === null ? 0 : this.names.blockedFor(name.toLowerCase());
    return Math.max(byName, this.addresses.blockedFor(address));
  }

  failed(address: string, name: string | null): void {
    this.addresses.fail(address);
    if (name !== null) this.names.fail(name.toLowerCase());
  }
}
