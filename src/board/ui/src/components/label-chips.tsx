import type { Machine } from '../api/types.js';
import { useI18n } from '../hooks.js';

/**
 * A machine's labels as chips, `key=value` (`key` alone for an empty value); the board's are
 * drawn solid and the agent's dashed, each titled with where it came from. Text, never HTML.
 */
export function LabelChips(props: { machine: Machine }) {
  const { t } = useI18n();
  const { labels, boardLabels } = props.machine;
  const keys = Object.keys(labels);
  if (keys.length === 0) return null;
  return (
    <ul class="label-chips" aria-label={t('labels.heading')} translate={false}>
      {keys.map((key) => {
        const value = labels[key] ?? '';
        const board = boardLabels.has(key);
        return (
          <li
            key={key}
            class={`label-chip ${board ? 'board' : 'agent'}`}
            title={t(board ? 'labels.fromBoard' : 'labels.fromAgent')}
            data-label={key}
          >
            {value === '' ? key : `${key}=${value}`}
          </li>
        );
      })}
    </ul>
  );
}
