import { useState } from 'preact/hooks';
import type { Machine } from '../api/types.js';
import { useCan } from '../auth/can.js';
import { useI18n } from '../hooks.js';
import { useUpdate } from '../state/update-context.js';

/**
 * Whether "update all" would include `m`: configured or verified (the board leaves out names
 * anyone with the registration token can announce), up, taking updates, behind the board's file.
 */
export function updatable(m: Machine): boolean {
  return (
    (m.origin === 'configured' || m.verified === true) &&
    m.state === 'up' &&
    m.agent.updates === 'on' &&
    m.agent.updateAvailable
  );
}

/** The agent's word on its last update, when it did not take: rolled back or refused, and why. */
function LastOutcome(props: { machine: Machine }) {
  const { t } = useI18n();
  const last = props.machine.agent.lastUpdate;
  if (last === null || last.state === 'updated') return null;
  const detail = last.detail === '' ? '—' : last.detail;
  return (
    <p class="update-outcome" data-testid="update-outcome" data-state={last.state}>
      {last.state === 'rolled_back'
        ? t('update.lastRolledBack', { detail })
        : t('update.lastRefused', { detail })}
    </p>
  );
}

/** A card's "update available" badge, with an Update button when the agent takes updates. */
export function UpdateControl(props: { machine: Machine }) {
  const { t } = useI18n();
  const actions = useUpdate();
  const may = useCan().operate(props.machine);
  const m = props.machine;
  const [busy, setBusy] = useState(false);
  const [asked, setAsked] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  if (!m.agent.updateAvailable || !may) return null;
  const ask = () => {
    if (actions === null) return;
    setBusy(true);
    setProblem(null);
    actions.update(m.name).then(
      () => {
        setBusy(false);
        setAsked(true);
      },
      (error: unknown) => {
        setBusy(false);
        setProblem(error instanceof Error ? error.message : String(error));
      },
    );
  };
  return (
    <div class="agent-update">
      <LastOutcome machine={m} />
      <span class="update-badge" data-testid="update-available" title={t('update.availableHint')}>
        <span aria-hidden="true">⬆ </span>
        {t('update.available')}
      </span>
      {actions !== null && m.agent.updates === 'on' ? (
        asked ? (
          <span class="update-asked" role="status">
            {t('update.asked')}
          </span>
        ) : (
          <button
            type="button"
            class="update"
            disabled={busy}
            aria-label={t('update.label', { machine: m.name })}
            onClick={ask}
          >
            {t('update.button')}
          </button>
        )
      ) : null}
      {problem === null ? null : (
        <p class="problem" role="alert">
          {t('update.problem', { detail: problem })}
        </p>
      )}
    </div>
  );
}

/** The board page's "Update all (N)", shown while some machine can be updated. */
export function UpdateAll(props: { count: number; run(): Promise<string[]> }) {
  const { t } = useI18n();
  const [busy, setBusy] = useState(false);
  const [started, setStarted] = useState<number | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  if (props.count === 0 && started === null && problem === null) return null;
  const run = () => {
    setBusy(true);
    setProblem(null);
    props.run().then(
      (names) => {
        setBusy(false);
        setStarted(names.length);
      },
      (error: unknown) => {
        setBusy(false);
        setProblem(error instanceof Error ? error.message : String(error));
      },
    );
  };
  return (
    <div class="update-all">
      {props.count > 0 ? (
        <button type="button" class="update-all-button" disabled={busy} onClick={run}>
          {t('update.all', { count: props.count })}
        </button>
      ) : null}
      {started === null ? null : (
        <span role="status">{t('update.allAsked', { count: started })}</span>
      )}
      {problem === null ? null : (
        <p class="problem" role="alert">
          {t('update.allProblem', { detail: problem })}
        </p>
      )}
    </div>
  );
}
