/** Small, failure-proof wrappers: storage may be disabled or full, which must not break the page. */

export const KEYS = {
  /** The board token, for this tab only (sessionStorage). */
  token: 'panoptes.token',
  language: 'panoptes.language',
  /** The last catalogue used, so that the sign-in page speaks the chosen language too. */
  catalogue: 'panoptes.catalogue',
  theme: 'panoptes.theme',
  journal: 'panoptes.journal',
  /** Browser notifications asked for on this board. */
  browserNotify: 'panoptes.browserNotify',
  /** This browser's Web Push subscription on this board (its id, to delete it). */
  pushSubscription: 'panoptes.pushSubscription',
} as const;

function read(storage: () => Storage, key: string): string | null {
  try {
    return storage().getItem(key);
  } catch {
    return null;
  }
}

function write(storage: () => Storage, key: string, value: string | null): void {
  try {
    if (value === null) storage().removeItem(key);
    else storage().setItem(key, value);
  } catch {
    // not stored: the page keeps working with its in-memory value
  }
}

export const tabStore = {
  get: (key: string) => read(() => window.sessionStorage, key),
  set: (key: string, value: string | null) => write(() => window.sessionStorage, key, value),
};

export const localStore = {
  get: (key: string) => read(() => window.localStorage, key),
  set: (key: string, value: string | null) => write(() => window.localStorage, key, value),
};

/**
 * Takes `?token=` off the address: stores it for this tab and replaces the history entry, so that
 * the token is neither in the address bar nor in the tab's history. Runs before anything else.
 */
export function adoptTokenFromAddress(): void {
  const url = new URL(window.location.href);
  const token = url.searchParams.get('token');
  if (token === null) return;
  url.searchParams.delete('token');
  if (token !== '') tabStore.set(KEYS.token, token);
  window.history.replaceState(window.history.state, '', url.pathname + url.search + url.hash);
}
