import { useMemo } from 'preact/hooks';
import { type CheckRow, checkOrder, meanMs } from '../api/checks.js';
import { useI18n } from '../hooks.js';
import { checkHref, followLink } from '../state/route.js';
import { Ago } from './ago.js';
import { CheckStateBadge, RunnerName } from './check-parts.js';

function CheckLine(props: { check: CheckRow }) {
  const { t, number } = useI18n();
  const c = props.check;
  const href = checkHref(c.name);
  const latency = meanMs(c.runners);
  const failing = c.runners.filter((r) => !r.ok);
  return (
    <tr class={`check-row ${c.state}`} data-check={c.name} data-state={c.state}>
      <td data-label={t('checks.col.state')}>
        <CheckStateBadge state={c.state} />
      </td>
      <th scope="row" data-label={t('checks.col.check')}>
        <a href={href} onClick={(e) => followLink(e, href)} translate={false}>
          {c.name}
        </a>{' '}
        <span class="check-type" translate={false}>
          {c.type}
        </span>
      </th>
      <td data-label={t('checks.col.latency')} data-testid="check-latency">
        {latency === null ? '–' : `${number(latency, 0)} ms`}
      </td>
      <td data-label={t('checks.col.failing')} data-testid="check-failing">
        {c.runners.length === 0 ? (
          <span class="muted">{t('checks.noResults')}</span>
        ) : failing.length === 0 ? (
          <span class="muted">{t('checks.noneFailing', { count: c.runners.length })}</span>
        ) : (
          <ul class="check-runners">
            {failing.map((r) => (
              <li key={r.machine} data-runner={r.machine}>
                <RunnerName runner={r.machine} />
              </li>
            ))}
          </ul>
        )}
      </td>
      <td data-label={t('checks.col.since')}>{c.since === null ? '–' : <Ago at={c.since} />}</td>
    </tr>
  );
}

/**
 * The board's checks (absent while it has none): one row per check with its state, the mean of
 * its runners' last response times, the runners whose last run failed, and since when; down
 * checks first.
 */
export function ChecksSection(props: { checks: readonly CheckRow[] | null }) {
  const { t } = useI18n();
  const sorted = useMemo(() => [...(props.checks ?? [])].sort(checkOrder), [props.checks]);
  if (sorted.length === 0) return null;
  const down = sorted.filter((c) => c.state === 'down').length;
  return (
    <section class="checks" aria-labelledby="checks-heading" data-testid="checks">
      <h2 id="checks-heading" class="checks-heading">
        {t('checks.heading')}
        <span class={`checks-count${down > 0 ? ' some' : ''}`}>
          {t('checks.count', { down, total: sorted.length })}
        </span>
      </h2>
      <table class="checks-table">
        <thead>
          <tr>
            <th scope="col">{t('checks.col.state')}</th>
            <th scope="col">{t('checks.col.check')}</th>
            <th scope="col" title={t('checks.latencyHelp')}>
              {t('checks.col.latency')}
            </th>
            <th scope="col">{t('checks.col.failing')}</th>
            <th scope="col">{t('checks.col.since')}</th>
          </tr>
        </thead>
        <tbody>
          {sorted.map((c) => (
            <CheckLine key={c.name} check={c} />
          ))}
        </tbody>
      </table>
    </section>
  );
}
