import type { Clock as NowClock } from '../../shared/clock.js';

/** Cancels a timer; calling it twice is harmless. */
export type Cancel = () => void;

/** Time as the agent's domain sees it: injected so that tests drive it without sleeping. */
export interface Clock extends NowClock {
  /** Calls `fn` once after `ms` milliseconds. */
  setTimeout(fn: () => void, ms: number): Cancel;
}

/** The real clock. Its timers do not keep the process alive on their own. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout(fn, ms) {
    const timer = setTimeout(fn, ms);
    timer.unref();
    return () => clearTimeout(timer);
  },
};
