import { useEffect, useMemo, useState } from 'preact/hooks';
import {
  CHECK_RANGES,
  type CheckHistory,
  type CheckRange,
  type CheckRow,
  fetchCheckHistory,
} from '../api/checks.js';
import { createApi } from '../api/client.js';
import type { Catalogue } from '../api/types.js';
import { CanContext, canOf, EVERYTHING } from '../auth/can.js';
import { type Me, useMe } from '../auth/me.js';
import { ClockContext, createClock, useI18n } from '../hooks.js';
import { useChecksFeed } from '../state/checks-feed.js';
import { useLanguages } from '../state/languages.js';
import { useProblemText } from '../state/problem-text.js';
import { checkHref, followLink } from '../state/route.js';
import { Ago } from './ago.js';
import { CheckCharts } from './check-charts.js';
import { CheckStateBadge, ResultBadge, RunnerName } from './check-parts.js';
import type { SignInProblem } from './sign-in.js';
import { TopBar } from './top-bar.js';

// History is recorded once a run: a minute between reads is soon enough for a chart.
const HISTORY_REFRESH_MS = 60_000;

function rangeFromAddress(): CheckRange {
  const range = new URLSearchParams(window.location.search).get('range');
  return CHECK_RANGES.find((r) => r === range) ?? '24h';
}

/** Each runner's last result: whether it passed, in how long, its detail (as text), when. */
function RunnersTable(props: { check: CheckRow }) {
  const { t, number } = useI18n();
  if (props.check.runners.length === 0) return <p class="muted">{t('checks.noResults')}</p>;
  return (
    <table class="checks-table check-results" data-testid="check-results">
      <thead>
        <tr>
          <th scope="col">{t('checks.col.runner')}</th>
          <th scope="col">{t('checks.col.result')}</th>
          <th scope="col">{t('checks.col.ms')}</th>
          <th scope="col">{t('checks.col.detail')}</th>
          <th scope="col">{t('checks.col.at')}</th>
        </tr>
      </thead>
      <tbody>
        {props.check.runners.map((r) => (
          <tr key={r.machine} data-runner={r.machine} class={r.ok ? 'ok' : 'failed'}>
            <th scope="row" data-label={t('checks.col.runner')}>
              <RunnerName runner={r.machine} />
            </th>
            <td data-label={t('checks.col.result')}>
              <ResultBadge ok={r.ok} />
            </td>
            <td data-label={t('checks.col.ms')}>{`${number(r.ms, 0)} ms`}</td>
            <td data-label={t('checks.col.detail')} class="check-detail" translate={false}>
              {r.detail === '' ? '–' : r.detail}
            </td>
            <td data-label={t('checks.col.at')}>{r.at === 0 ? '–' : <Ago at={r.at} />}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** One check's page: its state, each runner's last result, and charts per runner over a range. */
export function CheckPage(props: {
  /** The board or API token; null: the browser's session cookie. */
  token: string | null;
  me: Me | null;
  name: string;
  onSignOut(why: SignInProblem | null, from?: string | null): void;
  onCatalogue(catalogue: Catalogue): void;
}) {
  const { t, number } = useI18n();
  const { name, onSignOut } = props;
  const api = useMemo(
    () => createApi(props.token, () => onSignOut({ kind: 'wrong' }, props.token)),
    [props.token, onSignOut],
  );
  const { languages, choose } = useLanguages(api, props.onCatalogue);
  const checks = useChecksFeed(api, true);
  const me = useMe(api, checks !== null, props.me);
  const can = useMemo(() => (me === null ? EVERYTHING : canOf(me.bindings)), [me]);
  const clock = useMemo(() => createClock(() => 0), []);
  const problemText = useProblemText(t);
  const [range, setRange] = useState<CheckRange>(rangeFromAddress);
  const [history, setHistory] = useState<CheckHistory | null | undefined>(undefined);
  const [problem, setProblem] = useState<string | null>(null);
  const check = checks?.find((c) => c.name === name);

  useEffect(() => {
    window.history.replaceState(window.history.state, '', `${checkHref(name)}&range=${range}`);
    let live = true;
    const load = () => {
      fetchCheckHistory(api, name, range).then(
        (h) => {
          if (!live) return;
          setHistory(h);
          setProblem(null);
        },
        (error: unknown) => {
          if (live) setProblem(problemText(error));
        },
      );
    };
    load();
    const timer = window.setInterval(load, HISTORY_REFRESH_MS);
    return () => {
      live = false;
      window.clearInterval(timer);
    };
  }, [api, name, range, problemText]);

  const share = (v: number | null | undefined) =>
    v === null || v === undefined ? '–' : `${number(v * 100, 2)} %`;
  const series = history?.series.filter((s) => s.t.length > 0) ?? [];

  return (
    <CanContext.Provider value={can}>
      <ClockContext.Provider value={clock}>
        <TopBar
          account={{ name: me?.name ?? null, people: can.managePeople() }}
          languages={languages}
          onLanguage={choose}
          onSignOut={() => onSignOut({ kind: 'signed-out' })}
          home={{ href: './', onClick: (e) => followLink(e, './') }}
        />
        <main class="machine-page check-page" aria-labelledby="check-page-heading">
          <p>
            <a href="./" class="back-link" onClick={(e) => followLink(e, './')}>
              ← {t('history.back')}
            </a>
          </p>
          <h1 id="check-page-heading" translate={false}>
            {name}
          </h1>
          {checks !== null && check === undefined ? (
            <p class="problem" role="alert">
              {t('checks.missing', { name })}
            </p>
          ) : null}
          {check === undefined ? null : (
            <>
              <dl class="uptime check-facts" data-testid="check-facts">
                <div>
                  <dt>{t('checks.col.state')}</dt>
                  <dd>
                    <CheckStateBadge state={check.state} />
                  </dd>
                </div>
                <div>
                  <dt>{t('checks.type')}</dt>
                  <dd translate={false}>{check.type}</dd>
                </div>
                <div>
                  <dt>{t('checks.col.since')}</dt>
                  <dd>{check.since === null ? '–' : <Ago at={check.since} />}</dd>
                </div>
                <div>
                  <dt>{t('history.uptime24h')}</dt>
                  <dd>
                    {share(
                      range === '24h' ? (history?.uptime ?? check.uptime24h) : check.uptime24h,
                    )}
                  </dd>
                </div>
                {range === '24h' ? null : (
                  <div>
                    <dt>{t('checks.uptimeRange', { range })}</dt>
                    <dd data-testid="check-uptime">{share(history?.uptime)}</dd>
                  </div>
                )}
              </dl>
              <h2 class="history-heading">{t('checks.results')}</h2>
              <RunnersTable check={check} />
            </>
          )}
          <h2 class="history-heading">{t('history.heading')}</h2>
          <div class="range-bar">
            <fieldset class="range-picker">
              <legend>{t('history.range')}</legend>
              {CHECK_RANGES.map((r) => (
                <button
                  key={r}
                  type="button"
                  aria-pressed={range === r}
                  onClick={() => setRange(r)}
                >
                  {r}
                </button>
              ))}
            </fieldset>
          </div>
          {problem !== null ? (
            <p class="problem" role="alert">
              {t('history.problem', { detail: problem })}
            </p>
          ) : null}
          {history === undefined && problem === null ? (
            <p class="muted">{t('history.loading')}</p>
          ) : history !== undefined && series.length === 0 ? (
            <p class="muted" data-testid="check-no-history">
              {t('checks.noHistory')}
            </p>
          ) : (
            <CheckCharts series={series} />
          )}
        </main>
      </ClockContext.Provider>
    </CanContext.Provider>
  );
}
