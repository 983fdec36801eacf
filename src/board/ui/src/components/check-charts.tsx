import { useMemo } from 'preact/hooks';
import type { CheckSeries } from '../api/checks.js';
import { useI18n } from '../hooks.js';
import { RunnerName } from './check-parts.js';
import { HistoryChart } from './history-chart.js';

// The check history has named ranges only: a drag across a chart does nothing.
const NO_ZOOM = () => undefined;

/** One runner's charts: its response time and its share of good runs over the window. */
function RunnerCharts(props: { series: CheckSeries }) {
  const { t, number, percent } = useI18n();
  const s = props.series;
  const none = useMemo(() => s.t.map(() => null), [s.t]);
  const ms = useMemo(() => (v: number) => `${number(v, 0)} ms`, [number]);
  return (
    <section class="check-runner-charts" data-runner={s.runner}>
      <h3 class="history-heading">
        <RunnerName runner={s.runner} />
      </h3>
      <div class="charts">
        <HistoryChart
          title={t('checks.chart.ms')}
          t={s.t}
          avg={s.ms}
          max={none}
          format={ms}
          onZoom={NO_ZOOM}
        />
        <HistoryChart
          title={t('checks.chart.ok')}
          t={s.t}
          avg={s.ok}
          max={none}
          format={percent}
          yMax={1}
          onZoom={NO_ZOOM}
        />
      </div>
    </section>
  );
}

/** Every runner's charts for one window. */
export function CheckCharts(props: { series: readonly CheckSeries[] }) {
  return (
    <>
      {props.series.map((s) => (
        <RunnerCharts key={s.runner} series={s} />
      ))}
    </>
  );
}
