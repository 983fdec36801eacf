import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';

export interface ChartProps {
  /** The chart's accessible name (also its visible heading). */
  title: string;
  t: number[];
  avg: (number | null)[];
  max: (number | null)[];
  /** How a value reads on the axis and in the legend. */
  format(v: number): string;
  /** The top of the y scale if fixed (shares: 1). */
  yMax?: number;
  /** A drag across the chart: zoom into [from, to] (epoch seconds). */
  onZoom(from: number, to: number): void;
  /** The x-axis's span (epoch seconds), when it is not simply the data's first to last point. */
  xRange?: [number, number] | undefined;
  /** The words under the title when the x-axis starts later than the window ("since 10:42"). */
  since?: string | null;
}

const HEIGHT = 160;

/**
 * One metric over time with uPlot (a canvas, no inline script or style: it runs under the
 * board's CSP), its average solid and its max faint; drag across it to zoom.
 */
export function HistoryChart(props: ChartProps) {
  const box = useRef<HTMLDivElement>(null);
  const zoom = useRef(props.onZoom);
  zoom.current = props.onZoom;

  useEffect(() => {
    const target = box.current;
    if (target === null) return;
    const fmt = props.format;
    const accent = getComputedStyle(target).color || '#0969da';
    const opts: uPlot.Options = {
      width: Math.max(200, target.clientWidth),
      height: HEIGHT,
      scales: {
        x: props.xRange === undefined ? { time: true } : { time: true, range: props.xRange },
        y:
          props.yMax === undefined
            ? { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] }
            : { range: [0, props.yMax] },
      },
      legend: { show: false },
      cursor: { drag: { x: true, y: false, setScale: false }, points: { show: false } },
      series: [
        {},
        {
          label: 'avg',
          stroke: accent,
          width: 1.5,
          spanGaps: false,
          value: (_u, v) => (v == null ? '–' : fmt(v)),
        },
        { label: 'max', stroke: accent, width: 1, dash: [4, 4], alpha: 0.45, spanGaps: false },
      ],
      axes: [
        { stroke: accent, grid: { stroke: 'rgba(128,128,128,0.15)' } },
        {
          stroke: accent,
          grid: { stroke: 'rgba(128,128,128,0.15)' },
          values: (_u, ticks) => ticks.map(fmt),
          size: 56,
        },
      ],
      hooks: {
        // The x-axis's span, for a reader of the page (and its tests): a canvas shows no text.
        setScale: [
          (u, key) => {
            if (key !== 'x') return;
            target.dataset.xMin = String(u.scales.x?.min ?? '');
            target.dataset.xMax = String(u.scales.x?.max ?? '');
          },
        ],
        setSelect: [
          (u) => {
            const { left, width } = u.select;
            if (width < 4) return;
            const from = u.posToVal(left, 'x');
            const to = u.posToVal(left + width, 'x');
            u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false);
            zoom.current(from, to);
          },
        ],
      },
    };
    const plot = new uPlot(opts, [props.t, props.avg, props.max], target);
    const observer = new ResizeObserver(() =>
      plot.setSize({ width: Math.max(200, target.clientWidth), height: HEIGHT }),
    );
    observer.observe(target);
    return () => {
      observer.disconnect();
      plot.destroy();
    };
  }, [props.t, props.avg, props.max, props.yMax, props.format, props.xRange]);

  return (
    <figure class="chart">
      <figcaption>{props.title}</figcaption>
      {props.since == null ? null : (
        <p class="chart-since" data-testid="chart-since">
          {props.since}
        </p>
      )}
      <div ref={box} class="chart-plot" role="img" aria-label={props.title} />
    </figure>
  );
}
