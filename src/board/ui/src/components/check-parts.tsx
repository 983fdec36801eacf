import type { CheckState } from '../api/checks.js';
import { useI18n } from '../hooks.js';
import type { MessageKey } from '../i18n/i18n.js';
import { BOARD_RUNNER, PUSH_RUNNER } from '../state/check-runners.js';
import { followLink, machineHref } from '../state/route.js';

const STATE_TEXT: Record<CheckState, MessageKey> = {
  up: 'checks.state.up',
  down: 'checks.state.down',
  unknown: 'checks.state.unknown',
};
const STATE_ICON: Record<CheckState, string> = { up: '▲', down: '✖', unknown: '?' };

/** A check's state: a word and a shape as well as a colour. */
export function CheckStateBadge(props: { state: CheckState }) {
  const { t } = useI18n();
  return (
    <span class={`state-badge ${props.state}`} data-state={props.state}>
      <span aria-hidden="true" class="state-icon">
        {STATE_ICON[props.state]}
      </span>
      {t(STATE_TEXT[props.state])}
    </span>
  );
}

/** A runner: its machine as a link to the machine's page, or the words for the board and push. */
export function RunnerName(props: { runner: string }) {
  const { t } = useI18n();
  const { runner } = props;
  if (runner === BOARD_RUNNER) return <span class="runner-word">{t('checks.runner.board')}</span>;
  if (runner === PUSH_RUNNER) return <span class="runner-word">{t('checks.runner.push')}</span>;
  const href = machineHref(runner);
  return (
    <a href={href} class="runner-machine" onClick={(e) => followLink(e, href)} translate={false}>
      {runner}
    </a>
  );
}

/** One run's result: passed or failed, in words and a shape as well as a colour. */
export function ResultBadge(props: { ok: boolean }) {
  const { t } = useI18n();
  return (
    <span class={`state-badge ${props.ok ? 'up' : 'down'}`} data-ok={String(props.ok)}>
      <span aria-hidden="true" class="state-icon">
        {props.ok ? '✔' : '✖'}
      </span>
      {t(props.ok ? 'checks.result.ok' : 'checks.result.failed')}
    </span>
  );
}
