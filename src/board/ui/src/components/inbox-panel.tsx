import { useState } from 'preact/hooks';
import { ApiError } from '../api/client.js';
import type { InboxSession } from '../api/types.js';
import { useI18n, useNow, useVersion } from '../hooks.js';
import type { InboxFeed } from '../state/inbox.js';
import { followLink, machineHref } from '../state/route.js';
import { type ElapsedKeys, elapsedText } from './ago.js';

const WAITING: ElapsedKeys = {
  now: 'inbox.waiting.now',
  seconds: 'inbox.waiting.seconds',
  minutes: 'inbox.waiting.minutes',
  hours: 'inbox.waiting.hours',
  days: 'inbox.waiting.days',
};

/** "waiting 12 min", kept current by the page's one-second clock (corrected to the board's). */
function Waiting(props: { session: InboxSession }) {
  const { t, time } = useI18n();
  const now = useNow();
  const { at, waitingS } = props.session;
  const s = at === null ? waitingS : Math.max(0, Math.floor((now - at) / 1000));
  const text = elapsedText(t, WAITING, s);
  if (at === null) return <span class="inbox-waiting">{text}</span>;
  return (
    <time
      class="inbox-waiting"
      data-waiting=""
      dateTime={new Date(at).toISOString()}
      title={time(at)}
    >
      {text}
    </time>
  );
}

function InboxRow(props: {
  session: InboxSession;
  feed: InboxFeed;
  mayAck: boolean;
  problemText(error: unknown): string;
}) {
  const { t } = useI18n();
  const s = props.session;
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const href = machineHref(s.machine);
  const acknowledge = async () => {
    setBusy(true);
    setProblem(null);
    try {
      await props.feed.acknowledge(s.machine, s.session);
    } catch (error) {
      setBusy(false);
      if (error instanceof ApiError && error.status === 401) return;
      setProblem(props.problemText(error));
    }
  };
  return (
    <li class={`inbox-item ${s.why}`} data-machine={s.machine} data-session={s.session}>
      <p class="inbox-head">
        <span class="label">{t(s.why === 'error' ? 'bell.error' : 'bell.attention')}</span>{' '}
        <span class="session" translate={false}>
          {s.session}
        </span>
      </p>
      <p class="inbox-meta">
        <a class="inbox-machine" href={href} onClick={(e) => followLink(e, href)} translate={false}>
          {s.machine}
        </a>
        {s.machineDown ? <span class="inbox-down">{t('inbox.machineDown')}</span> : null}
        <Waiting session={s} />
      </p>
      {s.text === '' ? null : (
        <p class="inbox-text" translate={false}>
          {s.text}
        </p>
      )}
      {!props.mayAck ? null : (
        <button
          type="button"
          class="inbox-ack"
          disabled={busy}
          aria-label={t('inbox.ackLabel', { session: s.session, machine: s.machine })}
          onClick={() => void acknowledge()}
        >
          {busy ? t('inbox.acking') : t('inbox.ack')}
        </button>
      )}
      {problem === null ? null : (
        <p class="problem" role="alert">
          {t('inbox.ackProblem', { detail: problem })}
        </p>
      )}
    </li>
  );
}

/**
 * The attention inbox: the sessions of every machine waiting for a person, longest waiting
 * first, each with its machine (a link to its page), its text, how long it has waited, and an
 * Acknowledge button. At the top of the board page: on a phone it is the first thing shown.
 */
export function InboxPanel(props: {
  feed: InboxFeed;
  problemText(error: unknown): string;
  /** Whether the person may acknowledge on this machine (auth/can.ts, asked by the page). */
  mayAck(machine: string): boolean;
}) {
  const { t } = useI18n();
  const { feed } = props;
  useVersion(feed);
  const { sessions, total, loaded, problem } = feed;
  return (
    <section class="inbox" aria-labelledby="inbox-heading" data-testid="inbox">
      <h2 id="inbox-heading" class="inbox-heading">
        {t('inbox.heading')}
        {total > 0 ? <span class="inbox-count">{t('inbox.count', { count: total })}</span> : null}
      </h2>
      {problem === null ? null : (
        <p class="problem" role="alert">
          {t('inbox.problem', { detail: props.problemText(problem) })}
        </p>
      )}
      {loaded && problem === null && sessions.length === 0 ? (
        <p class="inbox-empty">{t('inbox.empty')}</p>
      ) : null}
      {sessions.length === 0 ? null : (
        <ul class="inbox-list">
          {sessions.map((s) => (
            <InboxRow
              key={`${s.machine}\n${s.session}`}
              session={s}
              feed={feed}
              mayAck={props.mayAck(s.machine)}
              problemText={props.problemText}
            />
          ))}
        </ul>
      )}
      {total > sessions.length ? (
        <p class="inbox-more">{t('bell.more', { count: total - sessions.length })}</p>
      ) : null}
    </section>
  );
}
