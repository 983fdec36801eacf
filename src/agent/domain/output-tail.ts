/** The number of output bytes an action result carries. */
export const OUTPUT_TAIL_BYTES = 4096;

/** Keeps the last `limit` bytes written to it, whatever is written in total. */
export class OutputTail {
  private chunks: Buffer[] = [];
  private size = 0;
  private dropped = false;

  constructor(private readonly limit = OUTPUT_TAIL_BYTES) {}

  write(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size > this.limit) {
      const first = this.chunks[0];
      if (first === undefined) break;
      const excess = this.size - this.limit;
      this.dropped = true;
      if (first.length <= excess) {
        this.chunks.shift();
        this.size -= first.length;
      } else {
        this.chunks[0] = first.subarray(excess);
        this.size -= excess;
      }
    }
  }

  /** The kept bytes as text; a character cut in two at the start is dropped. */
  text(): string {
    let buffer = Buffer.concat(this.chunks);
    if (this.dropped) {
      // Skip UTF-8 continuation bytes left over from a character cut at the start.
      let start = 0;
      while (start < buffer.length && start < 3 && ((buffer[start] ?? 0) & 0xc0) === 0x80) {
        start += 1;
      }
      buffer = buffer.subarray(start);
    }
    return buffer.toString('utf8');
  }

  /** Whether earlier output was dropped to stay within the limit. */
  get truncated(): boolean {
    return this.dropped;
  }
}
