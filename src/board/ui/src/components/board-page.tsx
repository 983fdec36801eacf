import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ApiError, createApi } from '../api/client.js';
import { connectLive, type LiveStatus } from '../api/live.js';
import type { ActionName, Catalogue } from '../api/types.js';
import { CanContext, canOf, EVERYTHING } from '../auth/can.js';
import { type Me, useMe } from '../auth/me.js';
import { ClockContext, createClock, useI18n, useVersion } from '../hooks.js';
import { createBoardStore, rafScheduler } from '../state/board-store.js';
import { alertsFor, showAlerts } from '../state/browser-notify.js';
import { useChecksFeed } from '../state/checks-feed.js';
import { useClusterFeed } from '../state/cluster.js';
import { EnrolledContext, useEnrollmentsFeed } from '../state/enrollments.js';
import { useGroups, useThrottled } from '../state/groups.js';
import { createInboxFeed, inboxKey } from '../state/inbox.js';
import { createJournalStore } from '../state/journal-store.js';
import { labelKeys, readFilter } from '../state/label-filter.js';
import { useLanguages } from '../state/languages.js';
import { SilenceContext } from '../state/notify-context.js';
import { useProblemText } from '../state/problem-text.js';
import { countMachines } from '../state/select.js';
import { useServiceActions } from '../state/service-actions.js';
import { UpdateContext } from '../state/update-context.js';
import { UptimeContext, useUptimeFeed } from '../state/uptime.js';
import { KEYS, localStore } from '../storage.js';
import { readView, type ViewState, writeView } from '../url-state.js';
import { AddMachine } from './add-machine.js';
import { ChecksSection } from './checks-section.js';
import { ClusterLine } from './cluster-line.js';
import { ConfirmDialog } from './confirm-dialog.js';
import { Filters } from './filters.js';
import { GroupBar } from './group-bar.js';
import { InboxPanel } from './inbox-panel.js';
import { JournalPanel } from './journal-panel.js';
import { MachineList } from './machine-list.js';
import { NotifyPanel } from './notify-panel.js';
import type { SignInProblem } from './sign-in.js';
import { Summary } from './summary.js';
import { TopBar } from './top-bar.js';
import { UpdateAll, updatable } from './update-control.js';

const JOURNAL_FETCH = 200;

export interface BoardPageProps {
  /** The board or API token; null: the browser's session cookie. */
  token: string | null;
  /** Who the cookie session is (known before the page); null with a token. */
  me: Me | null;
  /** `from`: the token that was refused (a sign-out for another one is ignored). */
  onSignOut(why: SignInProblem | null, from?: string | null): void;
  onCatalogue(catalogue: Catalogue): void;
}

/** The signed-in page: summary, filters, machines, journal; kept live over /api/live. */
export function BoardPage(props: BoardPageProps) {
  const i18n = useI18n();
  const { t } = i18n;
  const { onSignOut, onCatalogue } = props;
  const api = useMemo(
    () => createApi(props.token, () => onSignOut({ kind: 'wrong' }, props.token)),
    [props.token, onSignOut],
  );
  const board = useMemo(() => createBoardStore(), []);
  const journal = useMemo(() => createJournalStore(rafScheduler), []);
  // The attention inbox: a client of GET /api/sessions, read again when the live feed says a
  // machine's bells or state changed, or an acknowledgement was journaled.
  const inbox = useMemo(() => createInboxFeed(api), [api]);
  useEffect(() => () => inbox.close(), [inbox]);
  // Renders again when the inbox changes (the tab title counts its open sessions).
  useVersion(inbox);
  const skew = useRef(0);
  const clock = useMemo(() => createClock(() => skew.current), []);
  const version = useVersion(board);
  const loaded = board.loaded;
  const me = useMe(api, loaded, props.me);
  const can = useMemo(() => (me === null ? EVERYTHING : canOf(me.bindings)), [me]);
  const uptime = useUptimeFeed(api);
  // Feeds of the whole fleet or for admins only: not asked by who would be refused.
  const cluster = useClusterFeed(api, can.seeAll());
  const [enrollNonce, setEnrollNonce] = useState(0);
  const enrolled = useEnrollmentsFeed(api, enrollNonce, can.enroll());
  const enrolledRef = useRef(enrolled);
  enrolledRef.current = enrolled;
  const [status, setStatus] = useState<LiveStatus>('connecting');
  const [loadProblem, setLoadProblem] = useState<string | null>(null);
  const [journalProblem, setJournalProblem] = useState<string | null>(null);
  const { languages, choose: chooseLanguageByHand } = useLanguages(api, onCatalogue);
  const [view, setViewState] = useState<ViewState>(() => readView(window.location.search));
  const [journalOpen, setJournalOpen] = useState(() => localStore.get(KEYS.journal) !== 'closed');
  const [browserNotify, setBrowserNotify] = useState(
    () => localStore.get(KEYS.browserNotify) === 'on',
  );
  const browserNotifyRef = useRef(browserNotify);
  browserNotifyRef.current = browserNotify;
  const tRef = useRef(t);
  tRef.current = t;
  const mayAck = useCallback(
    (name: string) => {
      const m = board.machines.get(name);
      return m === undefined ? can.operateAll() : can.operate(m);
    },
    [board, can],
  );

  const problemText = useProblemText(t);

  // The connection must not restart when the language (and so problemText) changes.
  const problemTextRef = useRef(problemText);
  problemTextRef.current = problemText;
  const onSignOutRef = useRef(onSignOut);
  onSignOutRef.current = onSignOut;

  // The first view over HTTP (it also proves the token), then the live socket.
  useEffect(() => {
    const problemText = (error: unknown) => problemTextRef.current(error);
    const onSignOut = (why: SignInProblem) => onSignOutRef.current(why, props.token);
    let cancelled = false;
    let live: { close(): void } | null = null;
    const loadJournal = () => {
      api.journal(JOURNAL_FETCH).then(
        (entries) => {
          journal.replace(entries);
          setJournalProblem(null);
        },
        (error: unknown) => setJournalProblem(problemText(error)),
      );
    };
    const start = async () => {
      try {
        const { board: first, serverTime } = await api.board();
        if (cancelled) return;
        const offset = serverTime === null ? 0 : serverTime - Date.now();
        skew.current = Math.abs(offset) > 2000 ? offset : 0;
        board.replace(first);
        inbox.changed();
        setLoadProblem(null);
      } catch (error) {
        if (cancelled || (error instanceof ApiError && error.status === 401)) return;
        // Too many wrong tokens from here (429), or a token for something else (403).
        if (error instanceof ApiError && (error.status === 429 || error.status === 403)) {
          onSignOut({ kind: 'refused', detail: error.message });
          return;
        }
        setLoadProblem(problemText(error));
      }
      if (cancelled) return;
      live = connectLive(api, {
        status: setStatus,
        message: (m, at) => {
          switch (m.type) {
            case 'board':
              inbox.changed();
              board.replace(m.board, at);
              setLoadProblem(null);
              // Once per connection: whatever happened while away is in the journal.
              loadJournal();
              return;
            case 'machine': {
              const t = tRef.current;
              showAlerts(
                alertsFor(board.machines.get(m.machine.name), m.machine, Date.now(), {
                  down: (x) => t('browser.down', { machine: x.name }),
                  bell: (x, session) => t('browser.bell', { machine: x.name, session }),
                }),
                browserNotifyRef.current,
              );
              if (inboxKey(board.machines.get(m.machine.name)) !== inboxKey(m.machine))
                inbox.changed();
              board.upsert(m.machine, at);
              return;
            }
            case 'removed':
              inbox.changed();
              board.remove(m.name, at);
              return;
            case 'journal':
              if (m.entry.op === 'ack') inbox.changed();
              journal.add(m.entry);
              return;
          }
        },
        // A socket that keeps failing may mean the token is no longer accepted: ask once.
        failing: () => {
          api.board().catch(() => undefined);
        },
      });
    };
    void start();
    return () => {
      cancelled = true;
      live?.close();
    };
  }, [api, board, journal, inbox]);

  const counts = useMemo(() => {
    void version;
    return countMachines(board.machines.values());
  }, [board, version]);
  const behind = useMemo(() => {
    void version;
    let n = 0;
    for (const m of board.machines.values()) if (updatable(m)) n += 1;
    return n;
  }, [board, version]);

  // The filter box is read (a selector parsed) once per change of its text.
  const filter = useMemo(() => readFilter(view.q), [view.q]);
  const groups = useGroups(api, loaded);
  const checks = useChecksFeed(api, loaded);
  const group = useMemo(
    () => groups.find((g) => g.name === view.g)?.selector ?? null,
    [groups, view.g],
  );
  // The group-by choices: every key on some machine, looked for at most every two seconds.
  const slowVersion = useThrottled(version, 2000);
  const keys = useMemo(() => {
    void slowVersion;
    return labelKeys(board.machines.values());
  }, [board, slowVersion]);

  // The tab title counts the open sessions: those the inbox lists (not acknowledged since).
  const open = inbox.total;
  useEffect(() => {
    document.title =
      open > 0 ? t('title.attention', { count: open, title: t('app.title') }) : t('app.title');
  }, [open, t]);

  // The view lives in the address (debounced: a replaceState per keystroke is throttled).
  const urlTimer = useRef<number | undefined>(undefined);
  const setView = useCallback((change: Partial<ViewState>) => {
    setViewState((current) => {
      const next = { ...current, ...change };
      if (!('page' in change)) next.page = 1;
      window.clearTimeout(urlTimer.current);
      urlTimer.current = window.setTimeout(() => writeView(next), 250);
      return next;
    });
  }, []);

  const toggleJournal = useCallback(() => {
    setJournalOpen((open) => {
      localStore.set(KEYS.journal, open ? 'closed' : null);
      return !open;
    });
  }, []);

  const showJournalOf = useCallback(
    (machine: string) => {
      setView({ jm: machine, jo: '', page: view.page });
      setJournalOpen(true);
      localStore.set(KEYS.journal, null);
      window.requestAnimationFrame(() => document.getElementById('journal-heading')?.focus());
    },
    [setView, view.page],
  );

  const forget = useCallback(
    async (machine: string, revoke: boolean) => {
      await api.forget(machine);
      board.remove(machine);
      if (revoke) setEnrollNonce((n) => n + 1);
    },
    [api, board],
  );
  const actions = useServiceActions(api, problemText, forget);
  const { requestAction: ask, requestForget: askForget } = actions;
  const requestAction = useCallback(
    (machine: string, service: string, action: ActionName) =>
      ask(machine, service, action, board.machines.get(machine)?.verified === false),
    [ask, board],
  );
  const requestForget = useCallback(
    (machine: string) => askForget(machine, enrolledRef.current.has(machine)),
    [askForget],
  );

  const silenceActions = useMemo(
    () => ({
      silence: (machine: string, minutes: number, reason: string) =>
        api.silence(machine, minutes, reason),
      unsilence: (machine: string) => api.unsilence(machine),
    }),
    [api],
  );
  const updateActions = useMemo(
    () => ({ update: (machine: string) => api.updateAgent(machine) }),
    [api],
  );
  const updateAll = useCallback(() => api.updateAll(), [api]);
  const enableBrowserNotify = useCallback((enabled: boolean) => {
    localStore.set(KEYS.browserNotify, enabled ? 'on' : null);
    setBrowserNotify(enabled);
  }, []);

  return (
    <CanContext.Provider value={can}>
      <ClockContext.Provider value={clock}>
        <a class="skip-link" href="#machines">
          {t('nav.skip')}
        </a>
        <TopBar
          status={status}
          languages={languages}
          journal={{ open: journalOpen, onToggle: toggleJournal }}
          onLanguage={chooseLanguageByHand}
          onSignOut={() => onSignOut({ kind: 'signed-out' })}
          account={{ name: me?.name ?? null, people: can.managePeople() }}
        />
        <div class={`layout${journalOpen ? ' with-journal' : ''}`}>
          <main id="machines" tabIndex={-1} aria-labelledby="machines-heading">
            <InboxPanel feed={inbox} problemText={problemText} mayAck={mayAck} />
            <h2 id="machines-heading" class="visually-hidden">
              {t('board.heading')}
            </h2>
            <Summary counts={counts} loaded={loaded} />
            <ClusterLine boards={cluster} />
            {can.operateAll() ? <UpdateAll count={behind} run={updateAll} /> : null}
            {can.enroll() ? (
              <AddMachine
                api={api}
                machine={(name) => board.machines.get(name)}
                onEnrolled={() => setEnrollNonce((n) => n + 1)}
              />
            ) : null}
            {loadProblem !== null ? (
              <p class="problem" role="alert">
                {t('board.loadProblem', { detail: loadProblem })}
              </p>
            ) : null}
            <ChecksSection checks={checks} />
            {can.seeAll() ? (
              <NotifyPanel
                api={api}
                browserEnabled={browserNotify}
                onBrowserEnabled={enableBrowserNotify}
              />
            ) : null}
            <GroupBar
              groups={groups}
              machines={board.machines}
              version={version}
              active={view.g}
              onPick={(g) => setView({ g })}
            />
            <Filters view={view} filter={filter} keys={keys} onChange={setView} />
            <SilenceContext.Provider value={silenceActions}>
              <UpdateContext.Provider value={updateActions}>
                <UptimeContext.Provider value={uptime}>
                  <EnrolledContext.Provider value={enrolled}>
                    <MachineList
                      machines={board.machines}
                      version={version}
                      loaded={loaded}
                      view={view}
                      filter={filter}
                      group={group}
                      outcomes={actions.outcomes}
                      onView={setView}
                      onAction={requestAction}
                      onForget={requestForget}
                      onDismiss={actions.dismiss}
                      onShowJournal={showJournalOf}
                    />
                  </EnrolledContext.Provider>
                </UptimeContext.Provider>
              </UpdateContext.Provider>
            </SilenceContext.Provider>
          </main>
          {journalOpen ? (
            <JournalPanel
              store={journal}
              machineFilter={view.jm}
              outcomeFilter={view.jo}
              problem={journalProblem}
              onFilter={(jm, jo) => setView({ jm, jo, page: view.page })}
            />
          ) : null}
        </div>
        <ConfirmDialog request={actions.confirm} onClose={actions.closed} />
      </ClockContext.Provider>
    </CanContext.Provider>
  );
}
