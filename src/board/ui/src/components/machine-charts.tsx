import { useMemo } from 'preact/hooks';
import type { Charted, HistoryData } from '../api/history.js';
import type { Origin } from '../api/types.js';
import { useI18n } from '../hooks.js';
import type { MessageKey } from '../i18n/i18n.js';
import { HistoryChart } from './history-chart.js';

type Unit = 'share' | 'load' | 'ms' | 'rate' | 'celsius';

/** `when`: shown only if the window holds that figure (a machine without GPUs draws no GPU chart). */
const CHARTS: { key: Charted; title: MessageKey; unit: Unit; when?: readonly Charted[] }[] = [
  { key: 'cpu', title: 'history.cpu', unit: 'share' },
  { key: 'mem', title: 'history.mem', unit: 'share' },
  { key: 'load', title: 'history.load', unit: 'load' },
  { key: 'disk', title: 'history.disk', unit: 'share' },
  { key: 'latency_ms', title: 'history.latency', unit: 'ms' },
  { key: 'gpu_util', title: 'history.gpuUtil', unit: 'share', when: ['gpu_util', 'gpu_mem'] },
  { key: 'gpu_mem', title: 'history.gpuMem', unit: 'share', when: ['gpu_util', 'gpu_mem'] },
  { key: 'net_rx', title: 'history.netRx', unit: 'rate', when: ['net_rx', 'net_tx'] },
  { key: 'net_tx', title: 'history.netTx', unit: 'rate', when: ['net_rx', 'net_tx'] },
  { key: 'temp_max', title: 'history.tempMax', unit: 'celsius', when: ['temp_max'] },
];

function recorded(data: HistoryData, keys: readonly Charted[]): boolean {
  return keys.some((k) => data.avg[k].some((v) => v !== null));
}

/**
 * The charts a machine can have data for: no poll latency for an announced machine (the board
 * does not poll it; one the board no longer knows shows it only if the window has some), no
 * GPU, network or temperature chart where the window has none of those figures.
 */
export function chartsFor(data: HistoryData, origin: Origin | null) {
  return CHARTS.filter((c) => {
    if (c.key === 'latency_ms')
      return origin === 'configured' || (origin === null && recorded(data, ['latency_ms']));
    return c.when === undefined || recorded(data, c.when);
  });
}

/** A machine's charts for one window. `since`: the window was cut to the first sample then. */
export function MachineCharts(props: {
  data: HistoryData;
  origin: Origin | null;
  since: number | null;
  onZoom(from: number, to: number): void;
}) {
  const i18n = useI18n();
  const { t, percent, number } = i18n;
  const formats = useMemo<Record<Unit, (v: number) => string>>(
    () => ({
      share: (v) => percent(v),
      load: (v) => number(v, 2),
      ms: (v) => `${number(v, 1)} ms`,
      rate: (v) => i18n.rate(v),
      celsius: (v) => i18n.celsius(v),
    }),
    [i18n, percent, number],
  );
  const since = props.since === null ? null : t('history.since', { time: i18n.time(props.since) });
  // A window cut to its first sample runs on to the window's end: a machine seen once has one
  // point, and uPlot would otherwise spread a single point over years.
  const { t: times, stepS } = props.data;
  const first = times[0];
  const last = times.at(-1);
  const xRange = useMemo<[number, number] | undefined>(
    () =>
      props.since === null || first === undefined || last === undefined
        ? undefined
        : [first, last + Math.max(1, stepS)],
    [props.since, first, last, stepS],
  );
  return (
    <div class="charts">
      {chartsFor(props.data, props.origin).map((c) => (
        <HistoryChart
          key={c.key}
          title={t(c.title)}
          t={props.data.t}
          avg={props.data.avg[c.key]}
          max={props.data.max[c.key]}
          format={formats[c.unit]}
          {...(c.unit === 'share' ? { yMax: 1 } : {})}
          since={since}
          xRange={xRange}
          onZoom={props.onZoom}
        />
      ))}
    </div>
  );
}
