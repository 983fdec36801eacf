import { useMemo } from 'preact/hooks';
import type { ActionName, Machine } from '../api/types.js';
import { useI18n } from '../hooks.js';
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
  const { machines, version, view } = props;
  const selected = useMemo(() => {
    void version;
    return selectMachines(machines.values(), view.q, view.state, view.sort);
  }, [machines, version, view.q, view.state, view.sort]);

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
      <ul class="machines" aria-label={t('board.heading')}>
        {shown.map((m) => (
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
        ))}
      </ul>
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
