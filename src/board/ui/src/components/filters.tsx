import { useI18n } from '../hooks.js';
import type { MessageKey } from '../i18n/i18n.js';
import type { TextFilter } from '../state/label-filter.js';
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

/**
 * Text filter (words, or a label selector), state filter, sort, group-by and page size; all of
 * them live in the address.
 */
export function Filters(props: {
  view: ViewState;
  /** The text filter as read (once per change of the text). */
  filter: TextFilter;
  /** The label keys the machines have: the group-by choices. */
  keys: readonly string[];
  onChange(change: Partial<ViewState>): void;
}) {
  const { t } = useI18n();
  const { view, onChange, filter } = props;
  const bad = filter.kind === 'error';
  // A key chosen in the address but on no machine now stays listed, so the choice shows.
  const keys =
    view.by === '' || props.keys.includes(view.by) ? props.keys : [...props.keys, view.by];
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
            aria-invalid={bad}
            {...(bad ? { 'aria-describedby': 'filter-problem' } : {})}
            onInput={(e) => onChange({ q: e.currentTarget.value })}
          />
          {bad ? (
            <span id="filter-problem" class="filter-problem" role="alert" translate={false}>
              {t('filter.selectorProblem', {
                problem: filter.problem,
                position: filter.position,
              })}
            </span>
          ) : null}
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
        {keys.length > 0 ? (
          <label class="field">
            <span id="filter-by-label">{t('groupBy.label')}</span>
            <select
              aria-labelledby="filter-by-label"
              value={view.by}
              onChange={(e) => onChange({ by: e.currentTarget.value })}
            >
              <option value="">{t('groupBy.none')}</option>
              {keys.map((k) => (
                <option key={k} value={k} translate={false}>
                  {k}
                </option>
              ))}
            </select>
          </label>
        ) : null}
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
