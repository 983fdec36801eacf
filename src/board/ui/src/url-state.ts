/** The board's view settings, kept in the address's query string so that they survive a reload. */

export const STATE_FILTERS = ['all', 'up', 'down', 'attention', 'queued'] as const;
export type StateFilter = (typeof STATE_FILTERS)[number];
export const SORTS = ['name', 'state', 'seen'] as const;
export type SortKey = (typeof SORTS)[number];
export const PAGE_SIZES = [30, 60, 120, 240] as const;

export interface ViewState {
  /** Text filter over name, location, host name, platform and service names, or a label selector. */
  q: string;
  /** The chosen group's name ('' : none). */
  g: string;
  /** Group the list by this label key ('' : not grouped). */
  by: string;
  state: StateFilter;
  sort: SortKey;
  /** 1-based page number. */
  page: number;
  per: number;
  /** Journal filters: machine name part and outcome. */
  jm: string;
  jo: string;
}

export const DEFAULT_VIEW: ViewState = {
  q: '',
  g: '',
  by: '',
  state: 'all',
  sort: 'name',
  page: 1,
  per: 60,
  jm: '',
  jo: '',
};

function oneOf<T extends string>(values: readonly T[], value: string | null, fallback: T): T {
  return values.find((v) => v === value) ?? fallback;
}

/** Reads the view from a query string; anything unknown falls back to the default. */
export function readView(search: string): ViewState {
  const p = new URLSearchParams(search);
  const page = Number.parseInt(p.get('page') ?? '', 10);
  const per = Number.parseInt(p.get('per') ?? '', 10);
  return {
    q: p.get('q') ?? '',
    g: p.get('g') ?? '',
    by: p.get('by') ?? '',
    state: oneOf(STATE_FILTERS, p.get('state'), DEFAULT_VIEW.state),
    sort: oneOf(SORTS, p.get('sort'), DEFAULT_VIEW.sort),
    page: Number.isSafeInteger(page) && page > 0 ? page : 1,
    per: PAGE_SIZES.find((s) => s === per) ?? DEFAULT_VIEW.per,
    jm: p.get('jm') ?? '',
    jo: p.get('jo') ?? '',
  };
}

/** The query string of a view: only what differs from the default, in a stable order. */
export function viewSearch(view: ViewState): string {
  const p = new URLSearchParams();
  for (const key of Object.keys(DEFAULT_VIEW) as (keyof ViewState)[]) {
    if (view[key] !== DEFAULT_VIEW[key]) p.set(key, String(view[key]));
  }
  const s = p.toString();
  return s === '' ? '' : `?${s}`;
}

/** Replaces the address's query with the view's (no new history entry per keystroke). */
export function writeView(view: ViewState): void {
  const search = viewSearch(view);
  if (search === window.location.search) return;
  window.history.replaceState(
    window.history.state,
    '',
    window.location.pathname + search + window.location.hash,
  );
}
