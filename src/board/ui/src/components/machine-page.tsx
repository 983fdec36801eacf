import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ApiError, createApi } from '../api/client.js';
import {
  fetchEvents,
  fetchHistory,
  fetchUptime,
  type HistoryData,
  type HistoryEvent,
  type HistoryWindow,
  type Uptime,
} from '../api/history.js';
import type { ActionName, Catalogue } from '../api/types.js';
import { CanContext, canOf, EVERYTHING } from '../auth/can.js';
import { type Me, useMe } from '../auth/me.js';
import { ClockContext, createClock, useI18n } from '../hooks.js';
import { useLanguages } from '../state/languages.js';
import { useMachineFeed } from '../state/machine-feed.js';
import { useProblemText } from '../state/problem-text.js';
import { followLink, machineHref } from '../state/route.js';
import { useServiceActions } from '../state/service-actions.js';
import { fromFirstSample, RANGES, rangeForData } from '../state/young-history.js';
import { ConfirmDialog } from './confirm-dialog.js';
import { MachineLabels } from './label-editor.js';
import { MachineCharts } from './machine-charts.js';
import { MachineNow } from './machine-now.js';
import type { SignInProblem } from './sign-in.js';
import { StateChanges } from './state-changes.js';
import { TopBar } from './top-bar.js';
import { UpStrip } from './up-strip.js';

const POINTS = 300;
const FIT_TRIES = 12;
const FIT_RETRY_MS = 5000;
const EVENTS = 50;

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

/**
 * One machine's page: uptime, the machine now (services, containers, processes…), the up/down
 * strip, charts with range and zoom, state changes.
 */
export function MachinePage(props: {
  /** The board or API token; null: the browser's session cookie. */
  token: string | null;
  me: Me | null;
  name: string;
  /** `from`: the token that was refused (a sign-out for another one is ignored). */
  onSignOut(why: SignInProblem | null, from?: string | null): void;
  onCatalogue(catalogue: Catalogue): void;
}) {
  const { t, number, time } = useI18n();
  const { name, onSignOut } = props;
  const api = useMemo(
    () => createApi(props.token, () => onSignOut({ kind: 'wrong' }, props.token)),
    [props.token, onSignOut],
  );
  const { languages, choose } = useLanguages(api, props.onCatalogue);
  const feed = useMachineFeed(api, name);
  // Asked once the machine's feed answered (the token proven), or known with the cookie.
  const me = useMe(api, feed.machine != null, props.me);
  const can = useMemo(() => (me === null ? EVERYTHING : canOf(me.bindings)), [me]);
  const clock = useMemo(() => createClock(() => 0), []);
  const problemText = useProblemText(t);
  // Only announced machines can be forgotten, and only from the board page.
  const noForget = useCallback(async () => undefined, []);
  const actions = useServiceActions(api, problemText, noForget);
  const { requestAction: ask } = actions;
  const verified = feed.machine?.verified;
  const requestAction = useCallback(
    (machine: string, service: string, action: ActionName) =>
      ask(machine, service, action, verified === false),
    [ask, verified],
  );
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

  // A named range shows a young machine from its first sample on; a zoom shows what it asked.
  const shown = useMemo(
    () => (data === null ? null : 'range' in win ? fromFirstSample(data) : { data, since: null }),
    [data, win],
  );

  const show = (v: number | null | undefined) =>
    v === null || v === undefined ? '–' : `${number(v * 100, 2)} %`;

  return (
    <CanContext.Provider value={can}>
      <ClockContext.Provider value={clock}>
        <TopBar
          account={{ name: me?.name ?? null, people: can.managePeople() }}
          languages={languages}
          onLanguage={choose}
          onSignOut={() => onSignOut({ kind: 'signed-out' })}
          status={feed.status}
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
          {feed.machine == null ? null : <MachineLabels api={api} machine={feed.machine} />}
          <MachineNow
            machine={feed.machine}
            outcomes={actions.outcomes.get(name)}
            onAction={requestAction}
            onDismiss={actions.dismiss}
          />
          <h2 class="history-heading">{t('history.heading')}</h2>
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
          {shown === null ? (
            <p class="muted">{t('history.loading')}</p>
          ) : (
            <>
              <h3 class="history-heading">{t('history.strip')}</h3>
              <UpStrip t={shown.data.t} up={shown.data.up} />
              <MachineCharts
                data={shown.data}
                origin={feed.machine?.origin ?? null}
                since={shown.since}
                onZoom={zoomTo}
              />
            </>
          )}
          <h2 class="history-heading">{t('history.events')}</h2>
          <StateChanges events={events} />
        </main>
        <ConfirmDialog request={actions.confirm} onClose={actions.closed} />
      </ClockContext.Provider>
    </CanContext.Provider>
  );
}
