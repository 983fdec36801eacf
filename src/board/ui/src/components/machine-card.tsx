import { memo } from 'preact/compat';
import type { ActionName, Machine } from '../api/types.js';
import { useCan } from '../auth/can.js';
import { useI18n } from '../hooks.js';
import { useEnrolled } from '../state/enrollments.js';
import type { MachineOutcomes } from '../state/outcomes.js';
import { followLink, machineHref } from '../state/route.js';
import { useUptime } from '../state/uptime.js';
import { LastSeen } from './ago.js';
import { CardContainers } from './card-containers.js';
import { GpuBars } from './gpu-bars.js';
import { LabelChips } from './label-chips.js';
import { Metrics } from './metrics.js';
import { Services } from './services.js';
import { SilenceControl } from './silence-control.js';
import { UpdateControl } from './update-control.js';

const NO_OUTCOMES = {};
/** How many alarming sessions a card lists before saying "and n more". */
const SESSIONS_SHOWN = 3;

export interface MachineCardProps {
  machine: Machine;
  outcomes: MachineOutcomes | undefined;
  onAction(machine: string, service: string, action: ActionName): void;
  onForget(machine: string): void;
  onDismiss(machine: string, service: string | null): void;
  onShowJournal(machine: string): void;
}

function hostOf(location: string): string {
  try {
    const url = new URL(location);
    return url.host + (url.pathname === '/' ? '' : url.pathname);
  } catch {
    return location;
  }
}

function Card(props: MachineCardProps) {
  const { t, number } = useI18n();
  const m = props.machine;
  const can = useCan();
  const o = m.overview;
  const up = m.state === 'up';
  const headingId = `machine-${m.name}`;
  const alarm = m.attention.length > 0;
  const uptime = useUptime(m.name)?.['24h'] ?? null;
  const href = machineHref(m.name);
  const enrolled = useEnrolled().has(m.name);
  return (
    <article
      class={`card ${m.state}${m.late ? ' late' : ''}${alarm ? ' alarm' : ''}${m.queued > 0 ? ' has-queued' : ''}`}
      aria-labelledby={headingId}
      data-machine={m.name}
      data-state={m.state}
    >
      <header class="card-head">
        <span class={`state-badge ${m.state}`}>
          <span aria-hidden="true" class="state-icon">
            {up ? '▲' : '✖'}
          </span>
          {t(up ? 'machine.up' : 'machine.down')}
        </span>
        <h3 id={headingId} translate={false}>
          <a
            href={href}
            onClick={(e) => followLink(e, href)}
            aria-label={t('machine.historyLabel', { machine: m.name })}
          >
            {m.name}
          </a>
        </h3>
        {m.late ? (
          <span class="late-badge" data-testid="late-badge">
            <span aria-hidden="true">◔ </span>
            {t('machine.late')}
          </span>
        ) : null}
        <span class={`origin ${m.origin}`}>
          {t(m.origin === 'configured' ? 'machine.configured' : 'machine.announced')}
        </span>
        {m.verified === false ? (
          <span class="unverified-badge" title={t('machine.unverifiedHint')}>
            <span aria-hidden="true">? </span>
            {t('machine.unverified')}
          </span>
        ) : null}
        {m.queued > 0 ? (
          <span class="queued-badge" data-testid="queued-badge">
            <span aria-hidden="true">◷ </span>
            {t('machine.queued', { count: m.queued })}
          </span>
        ) : null}
        {alarm ? (
          <span class="alarm-badge">
            <span aria-hidden="true">! </span>
            {t('machine.attention')}
          </span>
        ) : null}
      </header>
      <LabelChips machine={m} />
      <p class="where">
        {m.location === null ? null : (
          <a
            href={m.location}
            target="_blank"
            rel="noopener noreferrer"
            translate={false}
            aria-label={t('machine.open', { machine: m.name, location: m.location })}
          >
            {hostOf(m.location)}
          </a>
        )}
        {uptime === null ? null : (
          <span class="card-uptime" data-testid="card-uptime">
            {t('machine.uptime24h', { share: `${number(uptime * 100, 1)} %` })}
          </span>
        )}
        <LastSeen at={m.lastSeen} />
      </p>
      {!up && m.error !== null ? (
        <p class="machine-error">
          <span class="label">{t('machine.error')}</span> <span translate={false}>{m.error}</span>
        </p>
      ) : null}
      {alarm ? (
        <ul class="bells">
          {m.attention.slice(0, SESSIONS_SHOWN).map((s) => (
            <li key={s.session} class={`bell ${s.why}`}>
              <span class="label">{t(s.why === 'error' ? 'bell.error' : 'bell.attention')}</span>{' '}
              <span class="session" translate={false}>
                {s.session}
              </span>
              {s.text === '' ? null : (
                <span class="bell-text" translate={false}>
                  {s.text}
                </span>
              )}
            </li>
          ))}
          {m.attention.length > SESSIONS_SHOWN ? (
            <li>{t('bell.more', { count: m.attention.length - SESSIONS_SHOWN })}</li>
          ) : null}
        </ul>
      ) : null}
      {o === null ? (
        <p class="no-overview">{t('machine.noOverview')}</p>
      ) : (
        <>
          <p class="host" translate={false}>
            {[o.hostname, o.platform && o.arch ? `${o.platform}/${o.arch}` : o.platform]
              .filter((x) => x !== null && x !== '')
              .join(' · ')}
          </p>
          <Metrics overview={o} />
          <GpuBars overview={o} />
          <CardContainers machine={m} />
          <Services
            machine={m.name}
            services={o.services}
            outcomes={props.outcomes?.services ?? NO_OUTCOMES}
            onAction={props.onAction}
            onDismiss={props.onDismiss}
            canAct={can.operate(m)}
          />
        </>
      )}
      {props.outcomes?.forgetProblem == null ? null : (
        <p class="problem" role="alert">
          {t('forget.problem', { machine: m.name })}{' '}
          <q translate={false}>{props.outcomes.forgetProblem}</q>
        </p>
      )}
      <UpdateControl machine={m} />
      <SilenceControl machine={m} />
      <footer class="card-foot">
        <button
          type="button"
          class="link"
          aria-label={t('machine.journalLabel', { machine: m.name })}
          onClick={() => props.onShowJournal(m.name)}
        >
          {t('machine.journal')}
        </button>
        {m.origin === 'announced' && can.administer(m) ? (
          <button
            type="button"
            class="forget"
            aria-label={t(enrolled ? 'revoke.label' : 'forget.label', { machine: m.name })}
            onClick={() => props.onForget(m.name)}
          >
            {t(enrolled ? 'revoke.button' : 'forget.button')}
          </button>
        ) : null}
      </footer>
    </article>
  );
}

/** One machine: renders again only when its record, its outcomes or the language change. */
export const MachineCard = memo(Card);
