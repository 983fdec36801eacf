import { setImmediate as yieldToLoop } from 'node:timers/promises';

/** About this much work between two turns of the event loop (a GET waits at most about this). */
export const SLICE_MS = 4;
/**
 * The slice for work nobody waits for (the history recorder's copy of a sweep): a report that
 * arrives during a slice waits for its end, and at 1,500 reports a second the 4-ms slices of
 * each 5-s sweep's copy of 15,000 machines were a part of the TLS p99.
 */
export const BACKGROUND_SLICE_MS = 1;

/**
 * Calls `fn` on each of `items` in order, in slices of about `budgetMs` of work with a turn of
 * the event loop between them: work over 10,000 machines then never holds a request up for
 * more than a few ms. The clock is read once every 64 items (reading it costs too).
 */
export async function inSlices<T>(
  items: readonly T[],
  fn: (item: T, index: number) => void,
  budgetMs = SLICE_MS,
): Promise<void> {
  let i = 0;
  while (i < items.length) {
    const until = performance.now() + budgetMs;
    do {
      fn(items[i] as T, i);
      i += 1;
    } while (i < items.length && ((i & 63) !== 0 || performance.now() < until));
    if (i < items.length) await yieldToLoop();
  }
}
