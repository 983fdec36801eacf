/**
 * Counts failed authentication attempts per client address in a fixed window and says when an
 * address has had too many. Bounded: at most `maxAddresses` are tracked (oldest dropped first).
 */
export class FailureLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(
    private readonly now: () => number,
    private readonly maxFailures = 20,
    private readonly windowMs = 60_000,
    private readonly maxAddresses = 10_000,
  ) {}

  /** Seconds until the address may try again, or 0 if it may now. */
  blockedFor(address: string): number {
    const w = this.windows.get(address);
    if (w === undefined) return 0;
    const left = w.start + this.windowMs - this.now();
    if (left <= 0) {
      this.windows.delete(address);
      return 0;
    }
    return w.count >= this.maxFailures ? Math.ceil(left / 1000) : 0;
  }

  /** Counts one failure for the address. */
  fail(address: string): void {
    const now = this.now();
    const w = this.windows.get(address);
    if (w === undefined || now - w.start >= this.windowMs) {
      this.windows.delete(address);
      if (this.windows.size >= this.maxAddresses) {
        const oldest = this.windows.keys().next().value;
        if (oldest !== undefined) this.windows.delete(oldest);
      }
      this.windows.set(address, { start: now, count: 1 });
      return;
    }
    w.count += 1;
  }
}
