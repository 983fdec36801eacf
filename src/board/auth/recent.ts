/**
 * What a board looked up in the store a moment ago (a session, a token), by its digest: read
 * again after `ttlMs`, so a revocation on another board holds here within that time.
 */
export class Recent<T> {
  private readonly entries = new Map<string, { value: T; at: number }>();

  constructor(
    private readonly now: () => number,
    private readonly ttlMs = 2000,
    private readonly max = 10_000,
  ) {}

  /** The value looked up less than ttlMs ago, or undefined. */
  get(key: string): T | undefined {
    const e = this.entries.get(key);
    if (e === undefined) return undefined;
    if (this.now() - e.at >= this.ttlMs) {
      this.entries.delete(key);
      return undefined;
    }
    return e.value;
  }

  set(key: string, value: T): void {
    if (this.entries.size >= this.max) this.entries.clear();
    this.entries.set(key, { value, at: this.now() });
  }

  forget(key: string): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }
}
