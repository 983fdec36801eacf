import type { Overview } from '../api/types.js';
import { useI18n } from '../hooks.js';
import type { MessageKey } from '../i18n/i18n.js';

function level(share: number): 'ok' | 'warn' | 'crit' {
  return share >= 0.9 ? 'crit' : share >= 0.75 ? 'warn' : 'ok';
}

function Metric(props: {
  label: MessageKey;
  share: number;
  value: string;
  title?: string | undefined;
}) {
  const { t } = useI18n();
  const share = Math.max(0, Math.min(1, props.share));
  const lvl = level(share);
  return (
    <div class={`metric ${lvl}`} title={props.title}>
      <span class="metric-label">{t(props.label)}</span>
      <span class="metric-value">
        {props.value}
        {lvl === 'crit' ? (
          <span class="metric-flag" aria-hidden="true">
            {' '}
            !
          </span>
        ) : null}
      </span>
      <span class="bar" aria-hidden="true">
        <span style={{ width: `${Math.round(share * 100)}%` }} />
      </span>
    </div>
  );
}

/** CPU, load, memory and the fullest disk, as numbers with bars. */
export function Metrics(props: { overview: Overview }) {
  const i18n = useI18n();
  const { t } = i18n;
  const o = props.overview;
  const load = o.load[0];
  const disk = o.disks.reduce<(typeof o.disks)[number] | null>(
    (worst, d) => (worst === null || d.used / d.total > worst.used / worst.total ? d : worst),
    null,
  );
  return (
    <div class="metrics">
      {o.cpuUse === null ? null : (
        <Metric label="metric.cpu" share={o.cpuUse} value={i18n.percent(o.cpuUse)} />
      )}
      {load === undefined ? null : (
        <Metric
          label="metric.load"
          share={o.cpus !== null && o.cpus > 0 ? load / o.cpus : 0}
          value={i18n.number(load, 2)}
          title={
            o.cpus === null
              ? undefined
              : t('metric.loadTitle', {
                  load: o.load.map((l) => i18n.number(l, 2)).join(' · '),
                  cpus: o.cpus,
                })
          }
        />
      )}
      {o.memory === null ? null : (
        <Metric
          label="metric.memory"
          share={o.memory.used / o.memory.total}
          value={i18n.percent(o.memory.used / o.memory.total)}
          title={t('metric.usedOf', {
            used: i18n.bytes(o.memory.used),
            total: i18n.bytes(o.memory.total),
          })}
        />
      )}
      {disk === null ? null : (
        <Metric
          label="metric.disk"
          share={disk.used / disk.total}
          value={i18n.percent(disk.used / disk.total)}
          title={t('metric.diskOf', {
            path: disk.path,
            used: i18n.bytes(disk.used),
            total: i18n.bytes(disk.total),
          })}
        />
      )}
    </div>
  );
}
