import { useMemo, useState } from 'preact/hooks';
import type { ActionName, Container, ContainerAlert, Service } from '../api/types.js';
import { useI18n } from '../hooks.js';
import type { MessageKey } from '../i18n/i18n.js';
import type { ActionState } from '../state/outcomes.js';
import { NowPart, TableBox, useShown } from './now-part.js';

/** Rows shown before "show all": 500 containers stay one click away, not one long scroll. */
const SHOWN = 25;
/** From this many on, a filter box helps find one by name or image. */
const FILTER_FROM = 10;

const STATES: Record<string, MessageKey> = {
  running: 'container.state.running',
  exited: 'container.state.exited',
  paused: 'container.state.paused',
  restarting: 'container.state.restarting',
  created: 'container.state.created',
  dead: 'container.state.dead',
};
const HEALTH: Record<string, MessageKey> = {
  healthy: 'container.health.healthy',
  unhealthy: 'container.health.unhealthy',
  starting: 'container.health.starting',
};

/** 0: something is wrong now or the board saw it go wrong; 1: not running; 2: running. */
function rank(c: Container, alerted: ReadonlySet<string>): number {
  if (alerted.has(c.name) || c.health === 'unhealthy' || c.state === 'dead') return 0;
  if (c.state === 'restarting') return 0;
  return c.state === 'running' ? 2 : 1;
}

/** Problems first, then by name. */
export function sortContainers(list: readonly Container[], alerts: readonly ContainerAlert[]) {
  const alerted = new Set(alerts.map((a) => a.name));
  return list
    .map((c) => ({ c, r: rank(c, alerted) }))
    .sort((a, b) => a.r - b.r || (a.c.name < b.c.name ? -1 : a.c.name > b.c.name ? 1 : 0))
    .map((x) => x.c);
}

export interface ContainersProps {
  machine: string;
  /** false: the person may not act on this machine (no buttons; see auth/can.ts). */
  canAct?: boolean;
  containers: Container[] | null;
  error: string | null;
  omitted: number;
  alerts: readonly ContainerAlert[];
  /** The machine's services: a container service of the same name publishes the container. */
  services: readonly Service[];
  outcomes: Readonly<Record<string, ActionState>>;
  onAction(machine: string, service: string, action: ActionName): void;
}

/** The machine's containers, problems first, with Start/Stop on the published ones. */
export function ContainersTable(props: ContainersProps) {
  const i18n = useI18n();
  const { t } = i18n;
  const [filter, setFilter] = useState('');
  const sorted = useMemo(
    () => sortContainers(props.containers ?? [], props.alerts),
    [props.containers, props.alerts],
  );
  const matching = useMemo(() => {
    const words = filter
      .toLowerCase()
      .split(/\s+/)
      .filter((w) => w !== '');
    if (words.length === 0) return sorted;
    return sorted.filter((c) => {
      const text = `${c.name}\n${c.image}`.toLowerCase();
      return words.every((w) => text.includes(w));
    });
  }, [sorted, filter]);
  const { shown, toggle } = useShown(matching, SHOWN);
  if (props.containers === null && props.error === null) return null;
  const alerts = new Map(props.alerts.map((a) => [a.name, a.problem]));
  // The service names its container by name or id (an older agent: by the service's own name).
  const publishers = props.services.filter((s) => s.kind === 'container');
  const publisher = (c: { name: string; id: string }) =>
    publishers.find((s) => {
      const target = s.container ?? s.name;
      return target === c.name || (/^[0-9a-f]{12,64}$/.test(target) && c.id.startsWith(target));
    });
  const running = sorted.filter((c) => c.state === 'running').length;
  return (
    <NowPart part="containers" title={t('now.containers')} error={props.error}>
      {props.containers === null ? null : (
        <>
          <p class="now-summary" data-testid="containers-count">
            {t('container.count', { running, total: sorted.length })}
          </p>
          {sorted.length >= FILTER_FROM ? (
            <label class="now-filter">
              {t('container.filter')}{' '}
              <input
                type="search"
                value={filter}
                onInput={(e) => setFilter(e.currentTarget.value)}
              />
            </label>
          ) : null}
          {sorted.length === 0 ? <p class="muted">{t('now.none')}</p> : null}
          {shown.length === 0 ? null : (
            <TableBox label={t('now.containers')}>
              <table class="now-table containers-table">
                <thead>
                  <tr>
                    <th scope="col">{t('container.name')}</th>
                    <th scope="col">{t('container.image')}</th>
                    <th scope="col">{t('container.state')}</th>
                    <th scope="col">{t('container.health')}</th>
                    <th scope="col" class="num">
                      {t('container.cpu')}
                    </th>
                    <th scope="col" class="num">
                      {t('container.memory')}
                    </th>
                    <th scope="col" class="num">
                      {t('container.restarts')}
                    </th>
                    <th scope="col">{t('container.started')}</th>
                    <th scope="col">{t('container.actions')}</th>
                  </tr>
                </thead>
                <tbody>
                  {shown.map((c) => {
                    const alert = alerts.get(c.name);
                    const problem =
                      alert !== undefined || c.health === 'unhealthy' || c.state === 'dead';
                    const service = publisher(c);
                    const state = STATES[c.state];
                    const health = c.health === null ? undefined : HEALTH[c.health];
                    return (
                      <tr
                        key={c.id === '' ? c.name : c.id}
                        class={`${c.state}${problem ? ' problem' : ''}`}
                        data-container={c.name}
                      >
                        <th scope="row" translate={false}>
                          {c.name}
                        </th>
                        <td class="image" translate={false}>
                          {c.image}
                        </td>
                        <td>
                          {state === undefined ? (
                            <span translate={false}>{c.state}</span>
                          ) : (
                            t(state)
                          )}
                          {alert === undefined ? null : (
                            <span class="alert-mark">
                              {' '}
                              <span aria-hidden="true">! </span>
                              {t(
                                alert === 'stopped'
                                  ? 'container.alert.stopped'
                                  : 'container.alert.unhealthy',
                              )}
                            </span>
                          )}
                        </td>
                        <td class={c.health ?? ''}>
                          {c.health === null ? (
                            '–'
                          ) : health === undefined ? (
                            <span translate={false}>{c.health}</span>
                          ) : (
                            t(health)
                          )}
                        </td>
                        <td class="num" translate={false}>
                          {c.cpu === null ? '–' : i18n.fineShare(c.cpu)}
                        </td>
                        <td class="num" translate={false}>
                          {c.memUsed === null
                            ? '–'
                            : c.memLimit === null || c.memLimit === 0
                              ? i18n.bytes(c.memUsed)
                              : `${i18n.bytes(c.memUsed)} / ${i18n.bytes(c.memLimit)}`}
                        </td>
                        <td class="num" translate={false}>
                          {i18n.number(c.restarts)}
                        </td>
                        <td>
                          {c.startedAt === null ? (
                            '–'
                          ) : (
                            // A fixed time, not a ticking "ago": 500 rows must not render each second.
                            <time dateTime={new Date(c.startedAt).toISOString()} translate={false}>
                              {i18n.time(c.startedAt)}
                            </time>
                          )}
                        </td>
                        <td class="row-actions">
                          {service === undefined || props.canAct === false ? null : (
                            <ContainerButtons
                              machine={props.machine}
                              service={service}
                              sending={
                                props.outcomes[service.name] !== undefined &&
                                props.outcomes[service.name]?.outcome === null
                              }
                              onAction={props.onAction}
                            />
                          )}
                        </td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </TableBox>
          )}
          <p class="now-more">
            {toggle}
            {props.omitted > 0 ? (
              <span data-testid="containers-omitted">
                {t('container.omitted', { count: props.omitted })}
              </span>
            ) : null}
          </p>
        </>
      )}
    </NowPart>
  );
}

/** Start/Stop of a published container: what its service lets the board ask for. */
function ContainerButtons(props: {
  machine: string;
  service: Service;
  sending: boolean;
  onAction(machine: string, service: string, action: ActionName): void;
}) {
  const { t } = useI18n();
  const s = props.service;
  const blocked = props.sending || s.busy;
  return (
    <>
      {s.board
        .filter((a) => s.actions.includes(a))
        .map((a) => (
          <button
            key={a}
            type="button"
            class={`action ${a}`}
            aria-disabled={blocked}
            aria-label={t(a === 'start' ? 'action.startLabel' : 'action.stopLabel', {
              service: s.name,
              machine: props.machine,
            })}
            onClick={() => {
              if (!blocked) props.onAction(props.machine, s.name, a);
            }}
          >
            {t(a === 'start' ? 'action.start' : 'action.stop')}
          </button>
        ))}
    </>
  );
}
