import { useI18n } from '../hooks.js';
import type { ClusterBoard } from '../state/cluster.js';

/** The boards sharing this board's store, a dead one marked; nothing for a single board. */
export function ClusterLine(props: { boards: readonly ClusterBoard[] }) {
  const { t } = useI18n();
  if (props.boards.length < 2) return null;
  return (
    <p class="cluster" data-testid="cluster">
      <span>{t('cluster.boards')}</span>
      {props.boards.map((b) => (
        <span
          key={b.id}
          class={`board-id${b.alive ? '' : ' dead'}`}
          data-alive={b.alive ? 'true' : 'false'}
          title={b.alive ? t('cluster.alive') : t('cluster.dead')}
        >
          <span class="board-mark" aria-hidden="true">
            {b.alive ? '●' : '✖'}
          </span>
          {b.id}
          {b.alive ? null : <span class="visually-hidden"> ({t('cluster.dead')})</span>}
        </span>
      ))}
    </p>
  );
}
