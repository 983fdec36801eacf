import { useI18n } from '../hooks.js';
import type { ActionState } from '../state/outcomes.js';

/** What became of a start or stop: sending, done, refused, failed, or queued. */
export function Outcome(props: {
  machine: string;
  service: string;
  state: ActionState;
  onDismiss(): void;
}) {
  const { t } = useI18n();
  const { state, service, machine } = props;
  const what = t(state.action === 'start' ? 'outcome.start' : 'outcome.stop', { service });
  const o = state.outcome;
  let kind: string;
  let text: string;
  let detail: string | null = null;
  if (o === null) {
    kind = 'sending';
    text = t('outcome.sending');
  } else if (o.kind === 'done') {
    kind = 'done';
    text = t('outcome.done');
  } else if (o.kind === 'queued') {
    kind = 'queued';
    text = t('outcome.queued', { machine });
  } else if (o.kind === 'refused') {
    kind = 'refused';
    text = t('outcome.refused', { machine });
    detail = o.message;
  } else {
    kind = 'failed';
    text =
      o.exitCode === null ? t('outcome.failed') : t('outcome.failedExit', { code: o.exitCode });
    detail = o.message === '' ? null : o.message;
  }
  const icon = { sending: '…', done: '✔', queued: '◷', refused: '⛔', failed: '✖' }[kind] ?? '';
  return (
    <div class={`outcome ${kind}`} role="status" data-outcome={kind}>
      <span aria-hidden="true" class="outcome-icon">
        {icon}
      </span>
      <span class="outcome-text">
        <strong>{what}</strong> {text}
        {detail === null ? null : (
          <>
            {' '}
            <q class="outcome-detail" translate={false}>
              {detail}
            </q>
          </>
        )}
      </span>
      {o === null ? null : (
        <button
          type="button"
          class="dismiss"
          aria-label={t('outcome.dismiss', { service, machine })}
          onClick={props.onDismiss}
        >
          ×
        </button>
      )}
    </div>
  );
}
