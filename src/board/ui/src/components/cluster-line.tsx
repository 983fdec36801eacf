import { useI18n } from '../hooks.js';
import type { ClusterBoard } from '../state/cluster.js';

/**
 * The boards sharing this board's store, a dead one marked, and the one serving this page
 * marked "this board"; nothing for a single board.
 */
export function ClusterLine(props: { boards: readonly ClusterBoard[] }) {
  const { t } = useI18n();
  if (props.boards.length < 2) return null;
  return (
    <p class="cluster" data-testid="cluster">
      <span>{t('cluster.boards')}</span>
      {props.boards.map((b) => (
        <span
          key={b.id}
          class={`board-id${b.alive ? '' : ' dead'}${b.self ? ' self' : ''}`}
          data-alive={b.alive ? 'true' : 'false'}
          data-self={b.self ? 'true' : undefined}
          title={b.alive ? t('cluster.alive') : t('cluster.dead')}
        >
          <span class="board-mark" aria-hidden="true">
            {b.alive ? '●' : '✖'}
          </span>
          <span translate={false}>{b.id}</span>
          {b.self ? <span class="board-self"> ({t('cluster.self')})</span> : null}
          {b.alive ? null : <span class="visually-hidden"> ({t('cluster.dead')})</span>}
        </span>
      ))}
    </p>
  );
}
