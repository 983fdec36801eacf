import type { Gpu, Overview } from '../api/types.js';
import { useI18n } from '../hooks.js';

function level(share: number): 'ok' | 'warn' | 'crit' {
  return share >= 0.9 ? 'crit' : share >= 0.75 ? 'warn' : 'ok';
}

function GpuBar(props: { gpu: Gpu }) {
  const i18n = useI18n();
  const { t } = i18n;
  const g = props.gpu;
  const share = g.util ?? 0;
  const lvl = g.util === null ? 'ok' : level(share);
  const memory =
    g.memUsed !== null && g.memTotal !== null && g.memTotal > 0
      ? t('metric.usedOf', { used: i18n.bytes(g.memUsed), total: i18n.bytes(g.memTotal) })
      : null;
  const title = [
    g.name,
    memory,
    g.tempC === null ? null : `${i18n.number(g.tempC, 0)} °C`,
    g.powerW === null ? null : `${i18n.number(g.powerW, 0)} W`,
  ]
    .filter((x) => x !== null && x !== '')
    .join(' · ');
  return (
    <div class={`metric gpu ${lvl}`} title={title} data-gpu={g.index}>
      <span class="metric-label">{t('metric.gpu', { index: g.index })}</span>
      <span class="metric-value">{g.util === null ? '–' : i18n.percent(g.util)}</span>
      <span class="bar" aria-hidden="true">
        <span style={{ width: `${Math.round(share * 100)}%` }} />
      </span>
    </div>
  );
}

/** A bar per GPU (share busy; name, memory, temperature and power on hover), or why none. */
export function GpuBars(props: { overview: Overview }) {
  const { t } = useI18n();
  const o = props.overview;
  if (o.gpus.length === 0 && o.gpusError === null) return null;
  return (
    <div class="gpus" data-testid="gpus">
      {o.gpus.length === 0 ? null : (
        <div class="metrics">
          {o.gpus.map((g) => (
            <GpuBar key={g.index} gpu={g} />
          ))}
        </div>
      )}
      {o.gpusError === null ? null : (
        <p class="gpu-error" data-testid="gpu-error">
          {t('metric.gpuError')} <span translate={false}>{o.gpusError}</span>
        </p>
      )}
    </div>
  );
}
