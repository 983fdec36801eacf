import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ApiError, createApi } from '../api/client.js';
import {
  type Charted,
  fetchEvents,
  fetchHistory,
  fetchUptime,
  type HistoryData,
  type HistoryEvent,
  type HistoryWindow,
  type Uptime,
} from '../api/history.js';
import type { Catalogue } from '../api/types.js';
import { useI18n } from '../hooks.js';
import type { MessageKey } from '../i18n/i18n.js';
import { useLanguages } from '../state/languages.js';
import { followLink, machineHref } from '../state/route.js';
import { HistoryChart } from './history-chart.js';
import type { SignInProblem } from './sign-in.js';
import { StateChanges } from './state-changes.js';
import { TopBar } from './top-bar.js';
import { UpStrip } from './up-strip.js';

const RANGES = ['1h', '6h', '24h', '7d', '30d', '90d', '365d'] as const;
const RANGE_S: Record<(typeof RANGES)[number], number> = {
  '1h': 3600,
  '6h': 6 * 3600,
  '24h': 86_400,
  '7d': 7 * 86_400,
  '30d': 30 * 86_400,
  '90d': 90 * 86_400,
  '365d': 365 * 86_400,
};

/**
 * The default range for what the answer holds: a machine first seen ten minutes ago has a few
 * points at the end of 24 h (too few to draw a line), so its page opens at the smallest range
 * that still shows everything it has. Null: keep the range asked for.
 */
export function rangeForData(data: HistoryData): string | null {
  const first = data.up.findIndex((u) => u !== null);
  if (first < 0) return null;
  const end = (data.t.at(-1) ?? 0) + data.stepS;
  const span = end - (data.t[first] ?? end);
  const fit = RANGES.find((r) => RANGE_S[r] >= span) ?? null;
  return fit !== null && RANGE_S[fit] < end - (data.t[0] ?? end) ? fit : null;
}
const POINTS = 300;
const FIT_TRIES = 12;
const FIT_RETRY_MS = 5000;
const EVENTS = 50;

/** Charts marked `gpu` are shown only for a machine with GPU figures in the window. */
const CHARTS: { key: Charted; title: MessageKey; share: boolean; gpu?: true }[] = [
  { key: 'cpu', title: 'history.cpu', share: true },
  { key: 'mem', title: 'history.mem', share: true },
  { key: 'load', title: 'history.load', share: false },
  { key: 'disk', title: 'history.disk', share: true },
  { key: 'latency_ms', title: 'history.latency', share: false },
  { key: 'gpu_util', title: 'history.gpuUtil', share: true, gpu: true },
  { key: 'gpu_mem', title: 'history.gpuMem', share: true, gpu: true },
];

function hasGpuData(data: HistoryData): boolean {
  return (['gpu_util', 'gpu_mem'] as const).some((k) => data.avg[k].some((v) => v !== null));
}

function windowFromAddress(): HistoryWindow {
  const p = new URLSearchParams(window.location.search);
  const from = Number(p.get('from'));
  const to = Number(p.get('to'));
  if (p.has('from') && p.has('to') && Number.isFinite(from) && Number.isFinite(to) && from < to)
    return { from, to };
  const range = p.get('range');
  return { range: RANGES.find((r) => r === range) ?? '24h' };
}

function writeAddress(name: string, w: HistoryWindow): void {
  const q =
    'range' in w ? `&range=${w.range}` : `&from=${Math.floor(w.from)}&to=${Math.ceil(w.to)}`;
  window.history.replaceState(window.history.state, '', machineHref(name) + q);
}

/** One machine's page: uptime, the up/down strip, charts with range and zoom, state changes. */
export function MachinePage(props: {
  token: string;
  name: string;
  /** `from`: the token that was refused (a sign-out for another one is ignored). */
  onSignOut(why: SignInProblem | null, from?: string): void;
  onCatalogue(catalogue: Catalogue): void;
}) {
  const { t, percent, number, time } = useI18n();
  const { name, onSignOut } = props;
  const api = useMemo(
    () => createApi(props.token, () => onSignOut({ kind: 'wrong' }, props.token)),
    [props.token, onSignOut],
  );
  const { languages, choose } = useLanguages(api, props.onCatalogue);
  const [win, setWin] = useState<HistoryWindow>(windowFromAddress);
  /** No range in the address: the first answer may choose a shorter one (rangeForData). */
  const fitRange = useRef<boolean | null>(null);
  const [fitTries, setFitTries] = useState(0);
  if (fitRange.current === null) {
    const p = new URLSearchParams(window.location.search);
    fitRange.current = !p.has('range') && !p.has('from');
  }
  /** The windows zoomed out of, most recent last ("back" returns to them). */
  const [zoomed, setZoomed] = useState<HistoryWindow[]>([]);
  const [data, setData] = useState<HistoryData | null>(null);
  const [events, setEvents] = useState<HistoryEvent[]>([]);
  const [uptime, setUptime] = useState<Uptime | null>(null);
  const [problem, setProblem] = useState<string | null>(null);

  useEffect(() => {
    writeAddress(name, win);
    let live = true;
    let retry: number | undefined;
    fetchHistory(api, name, win, POINTS)
      .then((d) => {
        if (!live) return;
        if (fitRange.current === true) {
          const range = rangeForData(d);
          if (range !== null) {
            fitRange.current = false;
            setWin({ range });
            return;
          }
          // Nothing recorded yet (opened in the first seconds): ask again for a minute.
          if (d.up.some((u) => u !== null) || fitTries >= FIT_TRIES) fitRange.current = false;
          else retry = window.setTimeout(() => setFitTries((n) => n + 1), FIT_RETRY_MS);
        }
        setData(d);
        setProblem(null);
      })
      .catch((error: unknown) => {
        if (live)
          setProblem(
            error instanceof ApiError || error instanceof Error ? error.message : String(error),
          );
      });
    return () => {
      live = false;
      window.clearTimeout(retry);
    };
  }, [api, name, win, fitTries]);

  useEffect(() => {
    fetchEvents(api, name, EVENTS)
      .then(setEvents)
      .catch(() => undefined);
    fetchUptime(api)
      .then((u) => setUptime(u.get(name) ?? null))
      .catch(() => undefined);
  }, [api, name]);

  const zoomTo = useCallback(
    (from: number, to: number) => {
      setZoomed((z) => [...z, win]);
      setWin({ from, to });
    },
    [win],
  );
  const back = () => {
    const previous = zoomed.at(-1);
    if (previous === undefined) return;
    setZoomed(zoomed.slice(0, -1));
    setWin(previous);
  };
  const pick = (range: string) => {
    setZoomed([]);
    setWin({ range });
  };

  const formats = useMemo(
    () => ({
      share: (v: number) => percent(v),
      load: (v: number) => number(v, 2),
      ms: (v: number) => `${number(v, 1)} ms`,
    }),
    [percent, number],
  );
  const show = (v: number | null | undefined) =>
    v === null || v === undefined ? '–' : `${number(v * 100, 2)} %`;

  return (
    <>
      <TopBar
        languages={languages}
        onLanguage={choose}
        onSignOut={() => onSignOut({ kind: 'signed-out' })}
        home={{ href: './', onClick: (e) => followLink(e, './') }}
      />
      <main class="machine-page" aria-labelledby="machine-page-heading">
        <p>
          <a href="./" class="back-link" onClick={(e) => followLink(e, './')}>
            ← {t('history.back')}
          </a>
        </p>
        <h1 id="machine-page-heading" translate={false}>
          {name}
        </h1>
        <dl class="uptime" data-testid="uptime">
          <div>
            <dt>{t('history.uptime24h')}</dt>
            <dd>{show(uptime?.['24h'])}</dd>
          </div>
          <div>
            <dt>{t('history.uptime7d')}</dt>
            <dd>{show(uptime?.['7d'])}</dd>
          </div>
          <div>
            <dt>{t('history.uptime30d')}</dt>
            <dd>{show(uptime?.['30d'])}</dd>
          </div>
        </dl>
        <div class="range-bar">
          <fieldset class="range-picker">
            <legend>{t('history.range')}</legend>
            {RANGES.map((r) => (
              <button
                key={r}
                type="button"
                aria-pressed={'range' in win && win.range === r}
                onClick={() => pick(r)}
              >
                {r}
              </button>
            ))}
          </fieldset>
          {'from' in win ? (
            <span class="zoom-window" data-testid="zoom-window">
              {time(win.from * 1000)} – {time(win.to * 1000)}{' '}
              <button type="button" onClick={back} disabled={zoomed.length === 0}>
                {t('history.zoomOut')}
              </button>
            </span>
          ) : (
            <span class="muted">{t('history.zoomHint')}</span>
          )}
        </div>
        {problem !== null ? (
          <p class="problem" role="alert">
            {t('history.problem', { detail: problem })}
          </p>
        ) : null}
        {data === null ? (
          <p class="muted">{t('history.loading')}</p>
        ) : (
          <>
            <h2 class="history-heading">{t('history.strip')}</h2>
            <UpStrip t={data.t} up={data.up} />
            <div class="charts">
              {CHARTS.filter((c) => c.gpu !== true || hasGpuData(data)).map((c) => (
                <HistoryChart
                  key={c.key}
                  title={t(c.title)}
                  t={data.t}
                  avg={data.avg[c.key]}
                  max={data.max[c.key]}
                  format={c.share ? formats.share : c.key === 'load' ? formats.load : formats.ms}
                  {...(c.share ? { yMax: 1 } : {})}
                  onZoom={zoomTo}
                />
              ))}
            </div>
          </>
        )}
        <h2 class="history-heading">{t('history.events')}</h2>
        <StateChanges events={events} />
      </main>
    </>
  );
}
