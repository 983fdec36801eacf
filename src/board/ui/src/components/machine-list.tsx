import { useMemo } from 'preact/hooks';
import type { Selector } from '../../../../shared/selector.js';
import type { ActionName, Machine } from '../api/types.js';
import { useI18n } from '../hooks.js';
import { bucketOf, countBuckets, type TextFilter } from '../state/label-filter.js';
import type { MachineOutcomes } from '../state/outcomes.js';
import { selectMachines } from '../state/select.js';
import type { ViewState } from '../url-state.js';
import { MachineCard } from './machine-card.js';

export interface MachineListProps {
  machines: ReadonlyMap<string, Machine>;
  /** Changes whenever `machines` does (the map itself is updated in place). */
  version: number;
  loaded: boolean;
  view: ViewState;
  /** The text filter as read from `view.q`. */
  filter: TextFilter;
  /** The chosen group's selector, or null. */
  group: Selector | null;
  outcomes: ReadonlyMap<string, MachineOutcomes>;
  onView(change: Partial<ViewState>): void;
  onAction(machine: string, service: string, action: ActionName): void;
  onForget(machine: string): void;
  onDismiss(machine: string, service: string | null): void;
  onShowJournal(machine: string): void;
}

/**
 * One page of the filtered, sorted machines. Pages keep the DOM small at any fleet size
 * (10,000 machines render as one page of cards); cards are memoised, so a live update of one
 * machine renders that card only.
 */
export function MachineList(props: MachineListProps) {
  const { t } = useI18n();
  const { machines, version, view, filter, group } = props;
  const by = view.by === '' ? null : view.by;
  const selected = useMemo(() => {
    void version;
    return selectMachines(machines.values(), {
      filter,
      group,
      state: view.state,
      sort: view.sort,
      by,
    });
  }, [machines, version, filter, group, view.state, view.sort, by]);
  const buckets = useMemo(() => (by === null ? null : countBuckets(selected, by)), [selected, by]);

  if (!props.loaded) return null;
  const total = selected.length;
  const pages = Math.max(1, Math.ceil(total / view.per));
  const page = Math.min(view.page, pages);
  const from = (page - 1) * view.per;
  const shown = selected.slice(from, from + view.per);
  const goTo = (p: number) => {
    props.onView({ page: p });
    document.getElementById('machines')?.scrollIntoView({ block: 'start' });
  };

  const card = (m: Machine) => (
    <li key={m.name}>
      <MachineCard
        machine={m}
        outcomes={props.outcomes.get(m.name)}
        onAction={props.onAction}
        onForget={props.onForget}
        onDismiss={props.onDismiss}
        onShowJournal={props.onShowJournal}
      />
    </li>
  );

  if (total === 0) {
    return (
      <p class="empty" data-testid="empty">
        {machines.size === 0 ? t('list.emptyBoard', { button: t('add.button') }) : t('list.empty')}
      </p>
    );
  }
  return (
    <>
      <p class="list-count">
        {t('list.count', { from: from + 1, to: from + shown.length, total })}
      </p>
      {by === null || buckets === null ? (
        <ul class="machines" aria-label={t('board.heading')}>
          {shown.map(card)}
        </ul>
      ) : (
        runs(shown, by).map(({ bucket, list }) => {
          const c = buckets.get(bucket) ?? { up: 0, down: 0 };
          const title =
            bucket === null
              ? t('groupBy.without', { key: by })
              : bucket === ''
                ? t('groupBy.noValue', { key: by })
                : `${by}=${bucket}`;
          return (
            <section class="bucket" key={bucket ?? '\u0000'} aria-label={title}>
              <h3 class="bucket-head" data-bucket={bucket ?? ''}>
                <span translate={false}>{title}</span>{' '}
                <span class="bucket-counts">{t('groupBy.counts', { up: c.up, down: c.down })}</span>
              </h3>
              <ul class="machines">{list.map(card)}</ul>
            </section>
          );
        })
      )}
      {pages > 1 ? (
        <nav class="pages" aria-label={t('page.nav')}>
          <button type="button" disabled={page <= 1} onClick={() => goTo(page - 1)}>
            {t('page.prev')}
          </button>
          <span>{t('page.of', { page, pages })}</span>
          <button type="button" disabled={page >= pages} onClick={() => goTo(page + 1)}>
            {t('page.next')}
          </button>
        </nav>
      ) : null}
    </>
  );
}

/** The page's machines in runs of one bucket each (the list is sorted by bucket first). */
function runs(shown: readonly Machine[], by: string): { bucket: string | null; list: Machine[] }[] {
  const out: { bucket: string | null; list: Machine[] }[] = [];
  for (const m of shown) {
    const bucket = bucketOf(m, by);
    const last = out.at(-1);
    if (last !== undefined && last.bucket === bucket) last.list.push(m);
    else out.push({ bucket, list: [m] });
  }
  return out;
}
