import { useMemo, useState } from 'preact/hooks';
import type { JournalEntry } from '../api/types.js';
import { useI18n, useVersion } from '../hooks.js';
import type { MessageKey } from '../i18n/i18n.js';
import type { JournalStore } from '../state/journal-store.js';

/** How many matching entries the panel lists. */
const SHOWN = 200;

const OUTCOMES: Record<string, MessageKey> = {
  done: 'outcome.name.done',
  failed: 'outcome.name.failed',
  refused: 'outcome.name.refused',
  queued: 'outcome.name.queued',
  delivered: 'outcome.name.delivered',
  expired: 'outcome.name.expired',
  forgotten: 'outcome.name.forgotten',
  announced: 'outcome.name.announced',
  silenced: 'outcome.name.silenced',
  unsilenced: 'outcome.name.unsilenced',
  acknowledged: 'outcome.name.acknowledged',
  counted: 'outcome.name.counted',
};

const WHO: Record<string, MessageKey> = {
  board: 'journal.who.board',
  registration: 'journal.who.registration',
  anonymous: 'journal.who.anonymous',
  machine: 'journal.who.machine',
};

/** The kinds of actor an entry names (DESIGN 15), for the actor filter. */
const ACTORS: Record<string, MessageKey> = {
  person: 'journal.actor.person',
  token: 'journal.actor.token',
  board_token: 'journal.actor.board_token',
  machine: 'journal.actor.machine',
  mcp: 'journal.actor.mcp',
  anonymous: 'journal.actor.anonymous',
};

/** Whether an entry's actor is of `kind` (any: '') and its name holds `name` (any case). */
export function actorMatches(entry: JournalEntry, kind: string, name: string): boolean {
  if (kind === '' && name === '') return true;
  const a = entry.actor;
  if (a === null) return false;
  if (kind !== '' && a.kind !== kind) return false;
  return name === '' || a.name.toLowerCase().includes(name.toLowerCase());
}

/** The machine an entry is about: the target's first path segment ("web1/backup/start"). */
export function entryMachine(entry: JournalEntry): string {
  return entry.target.split('/')[0] ?? '';
}

function matches(entry: JournalEntry, machine: string, outcome: string): boolean {
  if (outcome !== '' && entry.outcome !== outcome) return false;
  if (machine === '') return true;
  return entryMachine(entry).toLowerCase().includes(machine.toLowerCase());
}

/** Recent journal entries, live, filterable by machine and outcome. */
export function JournalPanel(props: {
  store: JournalStore;
  machineFilter: string;
  outcomeFilter: string;
  problem: string | null;
  onFilter(machine: string, outcome: string): void;
}) {
  const i18n = useI18n();
  const { t } = i18n;
  const version = useVersion(props.store);
  const { store, machineFilter, outcomeFilter } = props;
  // By actor: applied here to the entries the page holds.
  const [actorKind, setActorKind] = useState('');
  const [actorName, setActorName] = useState('');
  const shown = useMemo(() => {
    void version;
    const out: JournalEntry[] = [];
    for (const e of store.entries) {
      if (!matches(e, machineFilter, outcomeFilter)) continue;
      if (!actorMatches(e, actorKind, actorName.trim())) continue;
      out.push(e);
      if (out.length >= SHOWN) break;
    }
    return out;
  }, [store, version, machineFilter, outcomeFilter, actorKind, actorName]);
  // The outcome choices: the known ones and any other the board has sent.
  const outcomes = useMemo(() => {
    void version;
    const all = new Set(Object.keys(OUTCOMES));
    for (const e of store.entries) if (e.outcome !== '') all.add(e.outcome);
    if (outcomeFilter !== '') all.add(outcomeFilter);
    return [...all];
  }, [store, version, outcomeFilter]);
  const outcomeName = (o: string) => {
    const key = OUTCOMES[o];
    return key === undefined ? o : t(key);
  };
  const filtered =
    machineFilter !== '' || outcomeFilter !== '' || actorKind !== '' || actorName !== '';

  return (
    <aside id="journal" class="journal" aria-labelledby="journal-heading">
      <h2 id="journal-heading" tabIndex={-1}>
        {t('journal.heading')}
      </h2>
      <div class="journal-filters">
        <label class="field">
          <span id="journal-machine-label">{t('journal.machine')}</span>
          <input
            type="search"
            aria-labelledby="journal-machine-label"
            value={machineFilter}
            onInput={(e) => props.onFilter(e.currentTarget.value, outcomeFilter)}
          />
        </label>
        <label class="field">
          <span id="journal-outcome-label">{t('journal.outcome')}</span>
          <select
            aria-labelledby="journal-outcome-label"
            value={outcomeFilter}
            onChange={(e) => props.onFilter(machineFilter, e.currentTarget.value)}
          >
            <option value="">{t('journal.allOutcomes')}</option>
            {outcomes.map((o) => (
              <option key={o} value={o}>
                {outcomeName(o)}
              </option>
            ))}
          </select>
        </label>
        <label class="field">
          <span id="journal-actor-kind-label">{t('journal.actorKind')}</span>
          <select
            aria-labelledby="journal-actor-kind-label"
            value={actorKind}
            onChange={(e) => setActorKind(e.currentTarget.value)}
          >
            <option value="">{t('journal.allActors')}</option>
            {Object.entries(ACTORS).map(([k, key]) => (
              <option key={k} value={k}>
                {t(key)}
              </option>
            ))}
          </select>
        </label>
        <label class="field">
          <span id="journal-actor-name-label">{t('journal.actorName')}</span>
          <input
            type="search"
            aria-labelledby="journal-actor-name-label"
            value={actorName}
            onInput={(e) => setActorName(e.currentTarget.value)}
          />
        </label>
        {filtered ? (
          <button
            type="button"
            class="link"
            onClick={() => {
              setActorKind('');
              setActorName('');
              props.onFilter('', '');
            }}
          >
            {t('journal.clear')}
          </button>
        ) : null}
      </div>
      {props.problem === null ? null : (
        <p class="problem" role="alert">
          {t('journal.problem', { detail: props.problem })}
        </p>
      )}
      {shown.length === 0 ? (
        <p class="empty">{t('journal.empty')}</p>
      ) : (
        <ol class="entries" aria-label={t('journal.heading')}>
          {shown.map((e) => {
            const at = Date.parse(e.at);
            const who = WHO[e.who];
            return (
              <li key={e.id} class={`entry ${e.outcome}`} data-outcome={e.outcome}>
                <time dateTime={e.at} translate={false}>
                  {Number.isNaN(at) ? e.at : i18n.time(at)}
                </time>
                <span
                  class={`outcome-badge ${e.outcome}`}
                  translate={OUTCOMES[e.outcome] !== undefined}
                >
                  {outcomeName(e.outcome)}
                </span>
                <span class="entry-what" translate={false}>
                  {e.op} {e.target}
                </span>
                <span class="entry-who" translate={who !== undefined}>
                  {who === undefined ? e.who : t(who)}
                  {e.status === null ? '' : ` · ${e.status}`}
                </span>
                {e.actor === null || e.actor.kind === 'machine' ? null : (
                  <span class="entry-actor" data-actor={`${e.actor.kind}:${e.actor.name}`}>
                    {t(ACTORS[e.actor.kind] ?? 'journal.actor.other')}{' '}
                    <span translate={false}>{e.actor.name}</span>
                  </span>
                )}
                {e.detail === null || e.detail === '' ? null : (
                  <span class="entry-detail" translate={false}>
                    {e.detail}
                  </span>
                )}
              </li>
            );
          })}
        </ol>
      )}
    </aside>
  );
}
