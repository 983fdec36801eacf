import { useI18n } from '../hooks.js';
import type { Counts } from '../state/select.js';

/** The summary line: how many machines are up, down, and waiting for attention. */
export function Summary(props: { counts: Counts; loaded: boolean }) {
  const { t } = useI18n();
  const c = props.counts;
  if (!props.loaded) return <p class="summary">{t('board.loading')}</p>;
  return (
    <p class="summary" data-testid="summary">
      <span class="sum total">{t('summary.total', { count: c.total })}</span>
      <span class="sum up">
        <span class="icon" aria-hidden="true">
          ▲
        </span>
        {t('summary.up', { count: c.up })}
      </span>
      <span class={`sum down${c.down > 0 ? ' some' : ''}`}>
        <span class="icon" aria-hidden="true">
          ✖
        </span>
        {t('summary.down', { count: c.down })}
      </span>
      <span class={`sum attention${c.attention > 0 ? ' some' : ''}`}>
        <span class="icon" aria-hidden="true">
          !
        </span>
        {t('summary.attention', { count: c.attention })}
      </span>
      {c.queued > 0 ? (
        <span class="sum queued">
          <span class="icon" aria-hidden="true">
            ◷
          </span>
          {t('summary.queued', { count: c.queued })}
        </span>
      ) : null}
    </p>
  );
}
