/**
 * Answers written together, once the event loop has taken every request that came in this
 * turn (setImmediate: after the poll phase), rather than each as soon as it is ready.
 *
 * Why (issue 26, the reports/s row): an agent waits for its answer, so writing one wakes the
 * waiting client, and on the same host the kernel does that in the writer's time. Written
 * between requests, each answer paid for a wake-up (the answer's `writev` was a third of the
 * board's time per report under wrk); written back to back, the client is still awake for
 * most of them. Measured side by side (docs/performance-round3.md): the board ~1.6× the
 * reports/s, and a bare server ~1.4×. An answer waits at most for the requests taken in the
 * same turn, each a few tens of µs. Nothing is reordered on a connection: node:http sends the
 * answers of one connection in the order of its requests whatever the order they end in.
 */
export class AnswerBatch {
  private due: (() => void)[] = [];

  constructor(private readonly onError: (error: unknown) => void) {}

  /** Runs `write` (which writes one answer) with the others of this turn. */
  add(write: () => void): void {
    if (this.due.push(write) === 1) setImmediate(this.flush);
  }

  private readonly flush = (): void => {
    const due = this.due;
    this.due = [];
    for (const write of due) {
      try {
        write();
      } catch (error) {
        // One answer that cannot be written does not keep the others back.
        this.onError(error);
      }
    }
  };
}
