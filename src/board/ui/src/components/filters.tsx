import { useI18n } from '../hooks.js';
import type { MessageKey } from '../i18n/i18n.js';
import {
  PAGE_SIZES,
  SORTS,
  type SortKey,
  STATE_FILTERS,
  type StateFilter,
  type ViewState,
} from '../url-state.js';

const STATE_TEXT: Record<StateFilter, MessageKey> = {
  all: 'filter.state.all',
  up: 'filter.state.up',
  down: 'filter.state.down',
  attention: 'filter.state.attention',
  queued: 'filter.state.queued',
};

const SORT_TEXT: Record<SortKey, MessageKey> = {
  name: 'sort.name',
  state: 'sort.state',
  seen: 'sort.seen',
};

/** Text filter, state filter, sort and page size; all of them live in the address. */
export function Filters(props: { view: ViewState; onChange(change: Partial<ViewState>): void }) {
  const { t } = useI18n();
  const { view, onChange } = props;
  return (
    <search>
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        <label class="field grow">
          <span id="filter-text-label">{t('filter.text')}</span>
          <input
            aria-labelledby="filter-text-label"
            type="search"
            value={view.q}
            placeholder={t('filter.textPlaceholder')}
            onInput={(e) => onChange({ q: e.currentTarget.value })}
          />
        </label>
        <label class="field">
          <span id="filter-state-label">{t('filter.state')}</span>
          <select
            aria-labelledby="filter-state-label"
            value={view.state}
            onChange={(e) => {
              const state = STATE_FILTERS.find((s) => s === e.currentTarget.value);
              if (state !== undefined) onChange({ state });
            }}
          >
            {STATE_FILTERS.map((s) => (
              <option key={s} value={s}>
                {t(STATE_TEXT[s])}
              </option>
            ))}
          </select>
        </label>
        <label class="field">
          <span id="filter-sort-label">{t('sort.label')}</span>
          <select
            aria-labelledby="filter-sort-label"
            value={view.sort}
            onChange={(e) => {
              const sort = SORTS.find((s) => s === e.currentTarget.value);
              if (sort !== undefined) onChange({ sort });
            }}
          >
            {SORTS.map((s) => (
              <option key={s} value={s}>
                {t(SORT_TEXT[s])}
              </option>
            ))}
          </select>
        </label>
        <label class="field">
          <span id="filter-per-label">{t('page.size')}</span>
          <select
            aria-labelledby="filter-per-label"
            value={String(view.per)}
            onChange={(e) => onChange({ per: Number(e.currentTarget.value) })}
          >
            {PAGE_SIZES.map((s) => (
              <option key={s} value={String(s)}>
                {s}
              </option>
            ))}
          </select>
        </label>
      </form>
    </search>
  );
}
