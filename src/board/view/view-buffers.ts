/** Views this large (about 4,500 machines and more) get memory that is given back at once. */
const RESIZABLE_FROM = 8 * 1024 * 1024;

/** ES2024's resizable ArrayBuffer (V8 11, Node 20), which the project's ES2023 lib lacks. */
interface Resizable extends ArrayBuffer {
  readonly resizable: boolean;
  readonly maxByteLength: number;
  resize(length: number): void;
}
const ResizableBuffer = ArrayBuffer as unknown as new (
  length: number,
  options: { maxByteLength: number },
) => Resizable;

function isResizable(memory: ArrayBuffer): memory is Resizable {
  return (memory as Partial<Resizable>).resizable === true;
}

/** How much memory to take for a view of `length` bytes: some room for a few more machines. */
function roomFor(length: number): number {
  return length + (length >>> 4);
}

/** How large a view `memory` can hold. */
function capacity(memory: ArrayBuffer): number {
  return isResizable(memory) ? memory.maxByteLength : memory.byteLength;
}

/**
 * Memory for a view of `length` bytes. A large view's is a resizable ArrayBuffer: V8 reserves
 * it with a mapping of its own, only the pages written count in the RSS, and resizing it to
 * nothing gives its pages back to the system at once, with no garbage collection; a plain buffer
 * of that size came from malloc, which keeps freed memory. Twice the room is reserved (address
 * space, not memory), so that a spare serves a larger view in place.
 */
function newMemory(length: number): ArrayBuffer {
  const room = roomFor(length);
  if (length < RESIZABLE_FROM) return Buffer.allocUnsafeSlow(room).buffer as ArrayBuffer;
  return new ResizableBuffer(room, { maxByteLength: 2 * room });
}

/**
 * The memory the board view's bytes are built in, used again. The view of 10,000
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
 * The memory is bounded as well: a background refresh waits a little
 * (`whenFree`) for a spare rather than take new memory while `limit` buffers are held. Without
 * it, GETs under a report flood held ~4 views of 27 MB (the current one, older ones still being
 * written to slow sockets, the one being built, and spares dropped for the collector).
 *
 * And spares past the largest are given up once unused for `idleMs`:
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
  /**
   * Buffers taken as new memory, neither given back (resized to nothing) nor collected (a
   * dropped plain one counts until then).
   */
  private held = 0;
  private readonly collected = new FinalizationRegistry<null>(() => {
    this.held -= 1;
    this.wake();
  });
  /** Refreshes waiting for a buffer (whenFree). */
  private waiting: (() => void)[] = [];
  /** Nothing reads the view (`giveUp`): no buffer is kept as a spare until the next `take`. */
  private idle = false;

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

  /** How many buffers are held (taken as new memory, not given back nor collected). */
  get count(): number {
    return this.held;
  }

  private free(length: number): boolean {
    return this.held < this.limit || this.spareFor(length) >= 0;
  }

  /** The index of the latest spare of at least `length` bytes, or -1 (older ones age out). */
  private spareFor(length: number): number {
    return this.spares.findLastIndex((s) => capacity(s.memory) >= length);
  }

  private wake(): void {
    for (const check of [...this.waiting]) check();
  }

  /** A buffer of `length` bytes (contents undefined), in a spare large enough when there is one. */
  take(length: number): Buffer {
    this.idle = false;
    const at = this.spareFor(length);
    if (at >= 0) {
      const [spare] = this.spares.splice(at, 1);
      if (spare !== undefined) {
        const memory = spare.memory;
        if (memory.byteLength < length && isResizable(memory))
          memory.resize(Math.min(memory.maxByteLength, roomFor(length)));
        return Buffer.from(memory, 0, length);
      }
    }
    const memory = newMemory(length);
    this.held += 1;
    this.collected.register(memory, null, memory);
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

  /**
   * Nothing reads the view any more (ViewCache's idle time): every spare, the largest too, is
   * given up now, and so is each buffer whose last reader gives it back later, until the next
   * `take`. A view of 15,000 machines and its spare are 54 MB of RSS kept for a GET that may
   * not come.
   */
  giveUp(): void {
    this.idle = true;
    this.letGo(() => true);
    if (this.trimTimer !== null) clearTimeout(this.trimTimer);
    this.trimTimer = null;
  }

  /** Whether `bytes` has readers that have not given it back, and how many spares are kept. */
  state(bytes: Buffer): { lent: boolean; spares: number } {
    return { lent: this.readers.has(bytes.buffer), spares: this.spares.length };
  }

  private spare(memory: ArrayBufferLike): void {
    if (!(memory instanceof ArrayBuffer) || this.spares.some((s) => s.memory === memory)) return;
    if (this.idle) {
      this.drop(memory);
      return;
    }
    this.spares.push({ memory, since: performance.now() });
    // The largest are kept: the view grows with the fleet far more often than it shrinks.
    if (this.spares.length > this.maxSpares) {
      const largest = [...this.spares].sort((a, b) => capacity(b.memory) - capacity(a.memory));
      const kept = new Set(largest.slice(0, this.maxSpares));
      this.letGo((s) => !kept.has(s));
    }
    this.scheduleTrim();
    this.wake();
  }

  /** Lets go of the spares `gone` picks (drop), keeping the others in their order. */
  private letGo(gone: (spare: { memory: ArrayBuffer; since: number }) => boolean): void {
    for (const s of this.spares) if (gone(s)) this.drop(s.memory);
    this.spares = this.spares.filter((s) => !gone(s));
  }

  /**
   * Lets a spare go: a resizable one's pages go back to the system now (and it no longer
   * counts as held); a plain one is left to the collector, and counts until collected.
   */
  private drop(memory: ArrayBuffer): void {
    if (!isResizable(memory)) return;
    memory.resize(0);
    this.collected.unregister(memory);
    this.held -= 1;
    this.wake();
  }

  /** Every spare but the largest (which is kept however long it is idle). */
  private extraSpares(): { memory: ArrayBuffer; since: number }[] {
    let largest = this.spares[0];
    for (const s of this.spares)
      if (capacity(s.memory) > (largest === undefined ? 0 : capacity(largest.memory))) largest = s;
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
        this.letGo((s) => idle.has(s));
        this.scheduleTrim();
      },
      Math.max(0, oldest + this.idleMs - performance.now()),
    );
    // Giving memory up does not keep a board that is shutting down alive.
    this.trimTimer.unref?.();
  }
}
