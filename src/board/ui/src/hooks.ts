import { createContext } from 'preact';
import { useContext, useEffect, useState } from 'preact/hooks';
import { createI18n, ENGLISH, type I18n } from './i18n/i18n.js';

/** Anything with a version and a subscription (the board and journal stores). */
export interface Subscribable {
  readonly version: number;
  subscribe(listener: () => void): () => void;
}

/** Renders again whenever `store` changes; returns its version (a memo key). */
export function useVersion(store: Subscribable): number {
  const [version, setVersion] = useState(store.version);
  useEffect(() => {
    setVersion(store.version);
    return store.subscribe(() => setVersion(store.version));
  }, [store]);
  return version;
}

export const I18nContext = createContext<I18n>(createI18n('en', ENGLISH));

/** The current interface language. */
export function useI18n(): I18n {
  return useContext(I18nContext);
}

/** A one-second tick for "12 s ago", corrected by the board's clock offset. */
export interface Clock {
  now(): number;
  subscribe(listener: () => void): () => void;
}

export const ClockContext = createContext<Clock>({
  now: () => Date.now(),
  subscribe: () => () => undefined,
});

/** The clock's current time, renewed every tick. */
export function useNow(): number {
  const clock = useContext(ClockContext);
  const [now, setNow] = useState(clock.now());
  useEffect(() => clock.subscribe(() => setNow(clock.now())), [clock]);
  return now;
}

/** A clock that ticks every second while anything listens. */
export function createClock(offsetMs: () => number): Clock {
  const listeners = new Set<() => void>();
  let timer: number | undefined;
  return {
    now: () => Date.now() + offsetMs(),
    subscribe(listener) {
      listeners.add(listener);
      if (timer === undefined) {
        timer = window.setInterval(() => {
          for (const l of listeners) l();
        }, 1000);
      }
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0 && timer !== undefined) {
          window.clearInterval(timer);
          timer = undefined;
        }
      };
    },
  };
}

/**
 * What `load` answers, fetched now and every `everyMs` while mounted (`initial` until the first
 * answer; a failed fetch keeps the last answer). A new `load` starts over.
 */
export function usePolled<T>(load: () => Promise<T>, initial: T, everyMs: number): T {
  const [value, setValue] = useState<T>(initial);
  useEffect(() => {
    let live = true;
    const fetchNow = () => {
      load()
        .then((v) => {
          if (live) setValue(() => v);
        })
        .catch(() => undefined);
    };
    fetchNow();
    const timer = setInterval(fetchNow, everyMs);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [load, everyMs]);
  return value;
}
