import type { ActionName, Machine } from '../api/types.js';
import { useCan } from '../auth/can.js';
import { useI18n } from '../hooks.js';
import type { MachineOutcomes } from '../state/outcomes.js';
import { LastSeen } from './ago.js';
import { ContainersTable } from './containers-table.js';
import { DiskHealthTable } from './disk-health.js';
import { GpuTable } from './gpu-table.js';
import { Metrics } from './metrics.js';
import { NetworkPart } from './network-part.js';
import { NowPart } from './now-part.js';
import { ProcessesTable } from './processes-table.js';
import { Services } from './services.js';
import { SessionsPart } from './sessions-part.js';
import { TempsPart } from './temps-part.js';

const NO_OUTCOMES = {};

export interface MachineNowProps {
  /** undefined: the board has not answered yet; null: it has no such machine now. */
  machine: Machine | null | undefined;
  outcomes: MachineOutcomes | undefined;
  onAction(machine: string, service: string, action: ActionName): void;
  onDismiss(machine: string, service: string | null): void;
}

/**
 * The machine as its last overview shows it: state, figures, services, sessions, GPUs,
 * containers, processes, network, temperatures and disk health, each part only where the
 * machine has that source.
 */
export function MachineNow(props: MachineNowProps) {
  const { t } = useI18n();
  const can = useCan();
  const m = props.machine;
  if (m === undefined) return <p class="muted">{t('now.loading')}</p>;
  if (m === null) return <p class="muted">{t('now.unknown')}</p>;
  const o = m.overview;
  const services = props.outcomes?.services ?? NO_OUTCOMES;
  return (
    <section class="machine-now" aria-labelledby="now-heading" data-testid="machine-now">
      <h2 id="now-heading" class="history-heading">
        {t('now.heading')}
      </h2>
      <p class="now-head">
        <span class={`state-badge ${m.state}`}>
          <span aria-hidden="true" class="state-icon">
            {m.state === 'up' ? '▲' : '✖'}
          </span>
          {t(m.state === 'up' ? 'machine.up' : 'machine.down')}
        </span>
        <span class={`origin ${m.origin}`}>
          {t(m.origin === 'configured' ? 'machine.configured' : 'machine.announced')}
        </span>
        {o === null ? null : (
          <span class="host" translate={false}>
            {[o.hostname, o.platform && o.arch ? `${o.platform}/${o.arch}` : o.platform]
              .filter((x) => x !== null && x !== '')
              .join(' · ')}
          </span>
        )}
        <LastSeen at={m.lastSeen} />
      </p>
      {m.state === 'down' && m.error !== null ? (
        <p class="machine-error">
          <span class="label">{t('machine.error')}</span> <span translate={false}>{m.error}</span>
        </p>
      ) : null}
      {o === null ? (
        <p class="no-overview">{t('machine.noOverview')}</p>
      ) : (
        <>
          <Metrics overview={o} />
          {o.services.length === 0 ? null : (
            <NowPart part="services" title={t('now.services')} error={null}>
              <Services
                machine={m.name}
                services={o.services}
                outcomes={services}
                onAction={props.onAction}
                onDismiss={props.onDismiss}
                canAct={can.operate(m)}
              />
            </NowPart>
          )}
          <SessionsPart sessions={o.sessions} />
          <GpuTable overview={o} />
          <ContainersTable
            machine={m.name}
            containers={o.now.containers}
            error={o.now.containersError}
            omitted={o.now.containersOmitted}
            alerts={m.containerAlerts}
            services={o.services}
            outcomes={services}
            onAction={props.onAction}
            canAct={can.operate(m)}
          />
          <ProcessesTable processes={o.now.processes} error={o.now.processesError} />
          <NetworkPart net={o.now.net} error={o.now.netError} />
          <TempsPart temps={o.now.temps} error={o.now.tempsError} />
          <DiskHealthTable smart={o.now.smart} error={o.now.smartError} />
        </>
      )}
    </section>
  );
}
