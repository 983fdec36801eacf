import { systemClock } from '../../shared/clock.js';
import { Access } from '../auth/access.js';
import { LocalPeople } from '../auth/local-people.js';
import { type BindingView, readBindings, WHOLE_BOARD } from '../auth/roles.js';
import type { BoardSettings } from '../config/config.js';
import { EventHub } from '../domain/events.js';
import { Journal } from '../domain/journal.js';
import type { Who } from '../schemas.js';
import type { BoardStore } from '../store/state.js';
import { UsersError, type UsersPort } from './users-port.js';

/** What the journal names for a change made with `users` (whoever holds the board's config). */
export const USERS_WHO: Who = Object.freeze({
  word: 'board',
  actor: { kind: 'board_token', name: 'users command' },
}) as Who;

/** Opens the board's store (SQLite in its data_dir, or PostgreSQL) as the board itself does. */
async function openEngine(settings: BoardSettings): Promise<BoardStore> {
  if (settings.store.engine === 'sqlite') {
    const { SqliteStore } = await import('../store/sqlite/state-store.js');
    return SqliteStore.open(settings.dataDir);
  }
  const { PostgresStore } = await import('../store/postgres/state-store.js');
  return PostgresStore.open(settings.store, () => undefined);
}

/**
 * `users` on the store itself: PostgreSQL (a running cluster reads the change at once) or a
 * SQLite file no board has open. Journaled as a board would, so the board shows it.
 */
export async function directUsers(settings: BoardSettings, origin: string): Promise<UsersPort> {
  const store = await openEngine(settings);
  const clock = systemClock;
  const reserve = store.journal.reserve;
  const journal = new Journal(
    clock,
    new EventHub(),
    store.journal,
    reserve === undefined ? await store.journal.load() : [],
    reserve === undefined ? {} : { reserve, boardId: settings.boardId },
  );
  const access = new Access(store.auth, clock, journal);
  const people = new LocalPeople(access);
  const done = <T>(change: { ok: T } | { detail: string }): T => {
    if ('ok' in change) return change.ok;
    throw new UsersError(change.detail);
  };
  return {
    list: () => people.list(),
    add: async (name, bindings: BindingView[]) => {
      const made = done(
        await people.add(USERS_WHO, WHOLE_BOARD, name, readBindings(bindings), origin),
      );
      return { link: made.link, link_expires_at: made.link_expires_at };
    },
    remove: async (name) => {
      done(await people.remove(USERS_WHO, name));
    },
    link: async (name) => done(await people.link(USERS_WHO, name, origin)),
    close: async () => {
      await store.close();
    },
  };
}
