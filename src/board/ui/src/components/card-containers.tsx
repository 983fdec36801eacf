import type { Machine } from '../api/types.js';
import { useI18n } from '../hooks.js';

/**
 * A card's one line about containers: how many run of how many, and a badge when the board saw
 * one that ran stop or turn unhealthy (its title names them). Nothing without containers.
 */
export function CardContainers(props: { machine: Machine }) {
  const { t } = useI18n();
  const m = props.machine;
  const now = m.overview?.now;
  const list = now?.containers ?? null;
  const alerts = m.containerAlerts;
  if ((list === null || list.length === 0) && alerts.length === 0) return null;
  const omitted = now?.containersOmitted ?? 0;
  return (
    <p class="card-containers" data-testid="card-containers">
      {list === null || list.length === 0 ? null : (
        <span
          class="container-count"
          title={omitted > 0 ? t('card.containersOmitted', { count: omitted }) : undefined}
        >
          {t('card.containers', {
            running: list.filter((c) => c.state === 'running').length,
            total: list.length,
          })}
        </span>
      )}
      {alerts.length === 0 ? null : (
        <span
          class="container-alert-badge"
          data-testid="container-alerts"
          title={alerts
            .map((a) =>
              t(a.problem === 'stopped' ? 'card.containerStopped' : 'card.containerUnhealthy', {
                name: a.name,
              }),
            )
            .join(', ')}
        >
          <span aria-hidden="true">! </span>
          {t('card.containerAlerts', { count: alerts.length })}
        </span>
      )}
    </p>
  );
}
