/**
 * glibc's malloc serves a request past its mmap threshold with a mapping of its own, returned to
 * the system when freed; but freeing such a mapping of up to 32 MiB raises the threshold to its
 * size, and later buffers of that size then come from the heap, whose freed memory glibc mostly
 * keeps (round 3's twelfth pass: a spare of 27 MB given up went from the array buffers, not from
 * the RSS). A large view's memory is therefore asked for past 32 MiB: always a mapping, and only
 * the pages written count in the RSS (the rest is never touched).
 */
const ALWAYS_MAPPED = 32 * 1024 * 1024 + 4096;
/** Views this large (about 4,500 machines and more) get their own mapping. */
const MAPPED_FROM = 8 * 1024 * 1024;

/** How much memory to take for a view of `length` bytes. */
function roomFor(length: number): number {
  // Some room to grow, so that a few more machines do not need a new buffer.
  const room = length + (length >>> 4);
  return length >= MAPPED_FROM ? Math.max(room, ALWAYS_MAPPED) : room;
}

/**
 * The memory the board view's bytes are built in, used again (issue 26). The view of 10,000
 * machines is 13–27 MB and is rebuilt after every sweep and, under reports, up to four times a
 * second; a new buffer each time left the old ones to the garbage collector, which frees the
 * memory of a buffer only when it collects the object that holds it: 30–145 MB of old views
 * waited for it under load. A view is built instead in a spare whose readers have all finished.
 *
 * A buffer is `lend`-ed to each reader (a response, a live client) and goes back to the spares
 * only when it is no longer the current view and every reader has given it back. A reader that
 * never gives it back (a response cut off before its last byte was written) only keeps that
 * buffer from being used again: it is then left to the garbage collector, as before. So a
 * buffer is never written while a reader may still read it.
 *
 * The memory is bounded as well (round 3's eleventh pass): a background refresh waits a little
 * (`whenFree`) for a spare rather than take new memory while `limit` buffers are held. Without
 * it, GETs under a report flood held ~4 views of 27 MB (the current one, older ones still being
 * written to slow sockets, the one being built, and spares dropped for the collector).
 *
 * And spares past the largest are given up once unused for `idleMs` (round 3's twelfth pass):
 * one is enough while nothing reads the view slowly (each refresh builds in it and the old view
 * becomes the next). The second, needed only while GETs hold older views, had stayed after a
 * burst of GETs for good: 27 MB at 15,000 announced, for nothing.
 */
export class ViewBuffers {
  /**
   * Readers of each buffer not yet given back, by its memory. Weak: a reader that never gives
   * its buffer back (a GET aborted mid-write, every few seconds for some clients) must not
   * keep that memory alive here once nothing else holds it.
   */
  private readonly readers = new WeakMap<ArrayBufferLike, number>();
  /** Buffers that are no longer the current view but still have readers (weak, as above). */
  private readonly retired = new WeakSet<ArrayBufferLike>();
  /** Spares, the latest given back last, each with when it was (ms, monotonic). */
  private spares: { memory: ArrayBuffer; since: number }[] = [];
  /** Gives up the spares past the largest once idle (set while there are such spares). */
  private trimTimer: ReturnType<typeof setTimeout> | null = null;
  /** Buffers taken as new memory and not yet collected (a dropped one counts until then). */
  private held = 0;
  private readonly collected = new FinalizationRegistry<null>(() => {
    this.held -= 1;
    this.wake();
  });
  /** Refreshes waiting for a buffer (whenFree). */
  private waiting: (() => void)[] = [];

  constructor(
    private readonly maxSpares = 2,
    /** Buffers held (in use, lent, spare or not yet collected) past which whenFree waits. */
    private readonly limit = 3,
    /** A spare other than the largest, unused this long, is left to the collector. */
    private readonly idleMs = 10_000,
  ) {}

  /**
   * Resolves when `take(length)` can be served without new memory past the limit (a spare
   * large enough, or fewer than `limit` buffers held), or after `timeoutMs` whatever holds.
   */
  whenFree(length: number, timeoutMs: number): Promise<void> {
    if (this.free(length)) return Promise.resolve();
    return new Promise((resolve) => {
      const check = (): void => {
        if (this.free(length)) done();
      };
      const done = (): void => {
        clearTimeout(timer);
        this.waiting = this.waiting.filter((w) => w !== check);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      // A refresh waiting for memory does not keep a board that is shutting down alive.
      timer.unref?.();
      this.waiting.push(check);
    });
  }

  /** How many buffers are held (taken as new memory and not yet collected). */
  get count(): number {
    return this.held;
  }

  private free(length: number): boolean {
    return this.held < this.limit || this.spareFor(length) >= 0;
  }

  /** The index of the latest spare of at least `length` bytes, or -1 (older ones age out). */
  private spareFor(length: number): number {
    return this.spares.findLastIndex((s) => s.memory.byteLength >= length);
  }

  private wake(): void {
    for (const check of [...this.waiting]) check();
  }

  /** A buffer of `length` bytes (contents undefined), in a spare large enough when there is one. */
  take(length: number): Buffer {
    const at = this.spareFor(length);
    if (at >= 0) {
      const [spare] = this.spares.splice(at, 1);
      if (spare !== undefined) return Buffer.from(spare.memory, 0, length);
    }
    const memory = Buffer.allocUnsafeSlow(roomFor(length)).buffer;
    this.held += 1;
    this.collected.register(memory, null);
    return Buffer.from(memory, 0, length);
  }

  /** `bytes` is read until the returned function is called (calls after the first do nothing). */
  lend(bytes: Buffer): () => void {
    const memory = bytes.buffer;
    this.readers.set(memory, (this.readers.get(memory) ?? 0) + 1);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      const left = (this.readers.get(memory) ?? 1) - 1;
      if (left > 0) {
        this.readers.set(memory, left);
        return;
      }
      this.readers.delete(memory);
      if (this.retired.delete(memory)) this.spare(memory);
    };
  }

  /** `bytes` is no longer the view (or was never finished): a spare once its readers are done. */
  retire(bytes: Buffer): void {
    const memory = bytes.buffer;
    if (this.readers.has(memory)) this.retired.add(memory);
    else this.spare(memory);
  }

  /** Whether `bytes` has readers that have not given it back, and how many spares are kept. */
  state(bytes: Buffer): { lent: boolean; spares: number } {
    return { lent: this.readers.has(bytes.buffer), spares: this.spares.length };
  }

  private spare(memory: ArrayBufferLike): void {
    if (!(memory instanceof ArrayBuffer) || this.spares.some((s) => s.memory === memory)) return;
    this.spares.push({ memory, since: performance.now() });
    // The largest are kept: the view grows with the fleet far more often than it shrinks.
    if (this.spares.length > this.maxSpares) {
      const largest = [...this.spares].sort((a, b) => b.memory.byteLength - a.memory.byteLength);
      const kept = new Set(largest.slice(0, this.maxSpares));
      this.spares = this.spares.filter((s) => kept.has(s));
    }
    this.scheduleTrim();
    this.wake();
  }

  /** Every spare but the largest (which is kept however long it is idle). */
  private extraSpares(): { memory: ArrayBuffer; since: number }[] {
    let largest = this.spares[0];
    for (const s of this.spares)
      if (s.memory.byteLength > (largest?.memory.byteLength ?? 0)) largest = s;
    return this.spares.filter((s) => s !== largest);
  }

  private scheduleTrim(): void {
    const extra = this.extraSpares();
    if (extra.length === 0 || this.trimTimer !== null) return;
    const oldest = Math.min(...extra.map((s) => s.since));
    this.trimTimer = setTimeout(
      () => {
        this.trimTimer = null;
        const now = performance.now();
        const idle = new Set(this.extraSpares().filter((s) => now - s.since >= this.idleMs));
        // Left to the collector (and counted until collected: `held`).
        this.spares = this.spares.filter((s) => !idle.has(s));
        this.scheduleTrim();
      },
      Math.max(0, oldest + this.idleMs - performance.now()),
    );
    // Giving memory up does not keep a board that is shutting down alive.
    this.trimTimer.unref?.();
  }
}
