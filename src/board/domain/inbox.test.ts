import { describe, expect, it } from 'vitest';
import { testBoard } from '../../../test/helpers/board-kit.js';
import { type AckRecord, type AckStore, Inbox, type SessionKey, sessionKey } from './inbox.js';
import { StoreUnavailable } from './store-unavailable.js';
import { BOARD_WHO, registrationWho } from './who.js';

const KEY = 'machine-key-0123456789';
const T0 = Date.parse('2026-01-01T00:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();

interface Bell {
  session: string;
  why: string;
  text?: string;
  /** ms after T0. */
  at: number;
}

/** A board with web1 and web2 polled, an inbox over a memory store (or the one given). */
function inboxBoard(store?: AckStore, loaded: AckRecord[] = []) {
  const t = testBoard({
    machines: [
      { name: 'web1', url: 'http://127.0.0.1:1', key: KEY },
      { name: 'web2', url: 'http://127.0.0.1:2', key: KEY },
    ],
  });
  const acks = store ?? t.store.acks;
  const inbox = new Inbox(t.clock, t.registry, t.journal, acks, loaded);
  t.registry.changes.subscribe((set) => inbox.onChangeSet(set));
  /** The machine's agent lists these sessions at the next sweep (null: it is down). */
  const sessions = (machine: string, bells: Bell[] | null) => {
    const url = machine === 'web1' ? 'http://127.0.0.1:1' : 'http://127.0.0.1:2';
    if (bells === null) {
      t.client.overviews.delete(url);
      return;
    }
    t.client.overviews.set(url, {
      ok: true,
      overview: {
        sessions: bells.map((b) => ({
          session: b.session,
          why: b.why,
          text: b.text ?? `${b.session} text`,
          at: iso(T0 + b.at),
        })),
      },
    });
  };
  const names = (state: 'open' | 'all' = 'all', limit = 1000) =>
    inbox.list(state, limit).sessions.map((s) => `${s.machine}/${s.session}`);
  return { ...t, inbox, sessions, names };
}

describe('Inbox', () => {
  it('lists open sessions first, longest waiting first, then the rest newest first', async () => {
    const b = inboxBoard();
    b.sessions('web1', [
      { session: 'a', why: 'attention', at: 5_000 },
      { session: 'done-old', why: 'finished', at: 1_000 },
      { session: 'b', why: 'error', at: 2_000 },
    ]);
    b.sessions('web2', [
      { session: 'c', why: 'attention', at: 3_000 },
      { session: 'done-new', why: 'finished', at: 9_000 },
    ]);
    await b.board.sweep();
    expect(b.names()).toEqual(['web1/b', 'web2/c', 'web1/a', 'web2/done-new', 'web1/done-old']);
    expect(b.names('open')).toEqual(['web1/b', 'web2/c', 'web1/a']);
    expect(b.inbox.list('open', 1000).total).toBe(3);
  });

  it('a limit keeps the first sessions in order and says how many there are in all', async () => {
    const b = inboxBoard();
    const bells: Bell[] = [];
    for (let i = 0; i < 150; i += 1) {
      bells.push({ session: `s${i}`, why: i % 3 === 0 ? 'finished' : 'attention', at: i * 7919 });
    }
    b.sessions('web1', bells);
    await b.board.sweep();
    const all = b.inbox.list('all', 1000);
    for (const limit of [0, 1, 7, 99, 149, 150]) {
      const page = b.inbox.list('all', limit);
      expect(page.total).toBe(150);
      expect(page.sessions).toEqual(all.sessions.slice(0, limit));
    }
    expect(b.inbox.list('open', 5).total).toBe(100);
  });

  it('pages after a key: each session once, in order, whatever the page size (MCP cursors)', async () => {
    const b = inboxBoard();
    const bells: Bell[] = [];
    for (let i = 0; i < 40; i += 1) {
      // Ties on `at` too: machine and session names break them.
      bells.push({
        session: `s${i}`,
        why: i % 3 === 0 ? 'finished' : 'attention',
        at: (i % 7) * 1000,
      });
    }
    b.sessions('web1', bells);
    b.sessions('web2', bells.slice(0, 10));
    await b.board.sweep();
    for (const state of ['all', 'open'] as const) {
      const whole = b.inbox.list(state, 1000);
      for (const size of [1, 3, 16]) {
        const walked: string[] = [];
        let after: SessionKey | null = null;
        for (;;) {
          const page = b.inbox.list(state, size, after);
          expect(page.total).toBe(whole.total);
          walked.push(...page.sessions.map((r) => `${r.machine}/${r.session}`));
          const last = page.sessions.at(-1);
          if (last === undefined) break;
          after = sessionKey(last);
        }
        expect(walked).toEqual(whole.sessions.map((r) => `${r.machine}/${r.session}`));
      }
    }
  });

  it('waiting_s is whole seconds since the bell, on the board clock', async () => {
    const b = inboxBoard();
    b.clock.advance(-b.clock.now() + T0 + 10_000);
    b.sessions('web1', [{ session: 'a', why: 'attention', text: 'look here', at: 4_500 }]);
    await b.board.sweep();
    expect(b.inbox.list('all', 10).sessions).toEqual([
      {
        machine: 'web1',
        session: 'a',
        why: 'attention',
        text: 'look here',
        at: iso(T0 + 4_500),
        waiting_s: 5,
        acknowledged_at: null,
        machine_state: 'up',
      },
    ]);
    b.clock.advance(90_000);
    expect(b.inbox.list('all', 10).sessions[0]?.waiting_s).toBe(95);
  });

  it('an ack closes a session until it rings again; it is journaled and kept in the store', async () => {
    const b = inboxBoard();
    b.sessions('web1', [
      { session: 'a', why: 'attention', at: 1_000 },
      { session: 'b', why: 'error', at: 2_000 },
    ]);
    await b.board.sweep();
    b.clock.advance(60_000);
    const answer = await b.inbox.acknowledge(BOARD_WHO, 'web1', 'a');
    const ackedAt = iso(b.clock.now());
    expect(answer).toEqual({
      status: 200,
      body: { machine: 'web1', session: 'a', acknowledged_at: ackedAt },
    });
    expect(b.names('open')).toEqual(['web1/b']);
    // Acknowledged, not open: among the rest, with its acknowledgement.
    expect(b.inbox.list('all', 10).sessions[1]).toMatchObject({
      session: 'a',
      acknowledged_at: ackedAt,
    });
    expect(await b.store.acks.load()).toEqual([
      { machine: 'web1', session: 'a', bell_at: iso(T0 + 1_000), acked_at: b.clock.now() },
    ]);
    expect(b.journal.recent(1)[0]).toMatchObject({
      who: 'board',
      op: 'ack',
      target: 'web1/a',
      outcome: 'acknowledged',
      status: 200,
    });

    // Polled again with the same bell: still acknowledged.
    await b.board.sweep();
    expect(b.names('open')).toEqual(['web1/b']);

    // Acknowledging again keeps the first time (and journals it).
    b.clock.advance(5_000);
    const again = await b.inbox.acknowledge(BOARD_WHO, 'web1', 'a');
    expect(again.body).toMatchObject({ acknowledged_at: ackedAt });

    // The session rings again: open, the old ack forgotten (in the store too).
    b.sessions('web1', [
      { session: 'a', why: 'attention', at: 100_000 },
      { session: 'b', why: 'error', at: 2_000 },
    ]);
    await b.board.sweep();
    expect(b.names('open')).toEqual(['web1/b', 'web1/a']);
    expect(b.inbox.list('all', 10).sessions[1]?.acknowledged_at).toBeNull();
    expect(await b.store.acks.load()).toEqual([]);
    expect(b.inbox.size()).toBe(0);
  });

  it('a finished bell after an attention one is not open, with or without an ack', async () => {
    const b = inboxBoard();
    b.sessions('web1', [{ session: 'a', why: 'attention', at: 1_000 }]);
    await b.board.sweep();
    await b.inbox.acknowledge(BOARD_WHO, 'web1', 'a');
    b.sessions('web1', [{ session: 'a', why: 'finished', at: 2_000 }]);
    await b.board.sweep();
    expect(b.names('open')).toEqual([]);
    expect(b.names('all')).toEqual(['web1/a']);
  });

  it('404 for an unknown machine or session; nothing journaled or stored', async () => {
    const b = inboxBoard();
    b.sessions('web1', [{ session: 'a · b', why: 'attention', at: 1_000 }]);
    await b.board.sweep();
    const before = b.journal.recent(100).length;
    expect(await b.inbox.acknowledge(BOARD_WHO, 'nosuch', 'a · b')).toEqual({
      status: 404,
      body: { detail: "No machine named 'nosuch' on this board" },
    });
    expect(await b.inbox.acknowledge(BOARD_WHO, 'web1', 'a')).toEqual({
      status: 404,
      body: { detail: "Machine 'web1' lists no session named 'a'" },
    });
    expect(b.journal.recent(100).length).toBe(before);
    expect(await b.store.acks.load()).toEqual([]);
    expect((await b.inbox.acknowledge(BOARD_WHO, 'web1', 'a · b')).status).toBe(200);
  });

  it('a down machine keeps its last sessions, marked down; its acks stay', async () => {
    const b = inboxBoard();
    b.sessions('web1', [
      { session: 'a', why: 'attention', at: 1_000 },
      { session: 'b', why: 'attention', at: 2_000 },
    ]);
    await b.board.sweep();
    await b.inbox.acknowledge(BOARD_WHO, 'web1', 'a');
    b.sessions('web1', null);
    await b.board.sweep();
    expect(b.inbox.list('all', 10).sessions.map((s) => [s.session, s.machine_state])).toEqual([
      ['b', 'down'],
      ['a', 'down'],
    ]);
    expect(b.names('open')).toEqual(['web1/b']);
    expect(b.inbox.size()).toBe(1);
  });

  it('forgets the acks of sessions no longer listed, and of machines forgotten', async () => {
    const b = inboxBoard();
    b.sessions('web1', [
      { session: 'a', why: 'attention', at: 1_000 },
      { session: 'b', why: 'attention', at: 2_000 },
    ]);
    await b.board.sweep();
    await b.inbox.acknowledge(BOARD_WHO, 'web1', 'a');
    await b.inbox.acknowledge(BOARD_WHO, 'web1', 'b');
    b.sessions('web1', [{ session: 'b', why: 'attention', at: 2_000 }]);
    await b.board.sweep();
    expect((await b.store.acks.load()).map((r) => r.session)).toEqual(['b']);

    await b.board.report(registrationWho(''), {
      name: 'lab1',
      location: 'http://127.0.0.1:9/',
      sessions: [{ session: 'x', why: 'error', text: 'boom', at: iso(T0 + 500) }],
    } as never);
    await b.board.sweep();
    await b.inbox.acknowledge(BOARD_WHO, 'lab1', 'x');
    expect(b.inbox.size()).toBe(2);
    await b.board.forget(BOARD_WHO, 'lab1');
    await b.board.sweep();
    expect((await b.store.acks.load()).map((r) => `${r.machine}/${r.session}`)).toEqual(['web1/b']);
    expect(b.inbox.size()).toBe(1);
  });

  it('after a restart: acks are read back and hold for machines not heard from yet', async () => {
    const b = inboxBoard(undefined, [
      { machine: 'web1', session: 'a', bell_at: iso(T0 + 1_000), acked_at: T0 + 5_000 },
    ]);
    // web1 is not polled yet: it lists nothing, and the ack is kept for it.
    await b.board.sweep();
    expect(b.inbox.size()).toBe(1);
    b.sessions('web1', [{ session: 'a', why: 'attention', at: 1_000 }]);
    await b.board.sweep();
    expect(b.names('open')).toEqual([]);
    expect(b.inbox.list('all', 1).sessions[0]?.acknowledged_at).toBe(iso(T0 + 5_000));
  });

  it('sync: takes the store’s acks (another board’s), unless one was written here meanwhile', async () => {
    const b = inboxBoard();
    b.sessions('web1', [{ session: 'a', why: 'attention', at: 1_000 }]);
    await b.board.sweep();
    const elsewhere: AckRecord = {
      machine: 'web1',
      session: 'a',
      bell_at: iso(T0 + 1_000),
      acked_at: T0 + 7_000,
    };
    const stale = b.inbox.version;
    await b.inbox.acknowledge(BOARD_WHO, 'web1', 'a');
    b.inbox.sync([], stale);
    expect(b.names('open')).toEqual([]);
    b.inbox.sync([elsewhere], b.inbox.version);
    expect(b.inbox.list('all', 1).sessions[0]?.acknowledged_at).toBe(iso(T0 + 7_000));
    b.inbox.sync([], b.inbox.version);
    expect(b.names('open')).toEqual(['web1/a']);
  });

  it('a store that cannot write: the ack is refused (503) and not held', async () => {
    const refusing: AckStore = {
      put: () => Promise.reject(new StoreUnavailable('disk full')),
      remove: () => Promise.reject(new StoreUnavailable('disk full')),
    };
    const b = inboxBoard(refusing);
    b.sessions('web1', [{ session: 'a', why: 'attention', at: 1_000 }]);
    await b.board.sweep();
    await expect(b.inbox.acknowledge(BOARD_WHO, 'web1', 'a')).rejects.toBeInstanceOf(
      StoreUnavailable,
    );
    expect(b.names('open')).toEqual(['web1/a']);
    expect(b.journal.recent(10).filter((e) => e.op === 'ack')).toEqual([]);
  });

  it('a small limit over many sessions keeps the longest waiting ones', async () => {
    const b = inboxBoard();
    const bells: Bell[] = [];
    for (let i = 0; i < 200; i += 1)
      bells.push({ session: `s${i}`, why: 'attention', at: (i * 7919) % 200_000 });
    b.sessions('web1', bells);
    await b.board.sweep();
    const page = b.inbox.list('open', 3);
    expect(page.total).toBe(200);
    expect(page.sessions.map((s) => s.at)).toEqual(
      [...bells]
        .map((x) => x.at)
        .sort((x, y) => x - y)
        .slice(0, 3)
        .map((ms) => iso(T0 + ms)),
    );
  });

  it('holds an open session an overview no longer lists, until acknowledged or rung again', async () => {
    const b = inboxBoard();
    b.sessions('web1', [
      { session: 'a', why: 'attention', at: 1_000 },
      { session: 'b', why: 'error', at: 2_000 },
      { session: 'done', why: 'finished', at: 3_000 },
    ]);
    await b.board.sweep();
    // The agent restarted without its bells: the open ones are held, the finished one goes.
    b.sessions('web1', []);
    await b.board.sweep();
    await b.board.sweep();
    expect(b.names()).toEqual(['web1/a', 'web1/b']);
    const web1 = b.registry.get('web1');
    expect(web1?.heldSessions.map((s) => s.session)).toEqual(['a', 'b']);
    // Acknowledged: gone at the next overview (and so is its ack, which covers nothing then).
    await b.inbox.acknowledge(BOARD_WHO, 'web1', 'a');
    await b.board.sweep();
    expect(b.names()).toEqual(['web1/b']);
    expect(b.inbox.size()).toBe(0);
    // Rung again: the overview's bell is the session's, held no more.
    b.sessions('web1', [{ session: 'b', why: 'finished', at: 9_000 }]);
    await b.board.sweep();
    expect(b.names()).toEqual(['web1/b']);
    expect(b.names('open')).toEqual([]);
    expect(web1?.heldSessions).toEqual([]);
  });

  it('the machine’s record carries its acks; a sync that changes none leaves it alone', async () => {
    const b = inboxBoard();
    b.sessions('web1', [{ session: 'a', why: 'attention', at: 1_000 }]);
    await b.board.sweep();
    const web1 = b.registry.get('web1');
    if (web1 === undefined) throw new Error('no web1');
    const record = () =>
      JSON.parse(b.registry.memory.recordBytes(web1).toString('utf8')) as Record<string, unknown>;
    expect(record().acknowledged).toBeUndefined();
    b.changes.length = 0;
    await b.inbox.acknowledge(BOARD_WHO, 'web1', 'a');
    expect(b.changes).toEqual(['web1']);
    expect(record().acknowledged).toEqual([{ session: 'a', at: iso(T0 + 1_000) }]);
    // The same acks read again (a cluster's sync, every second): no change.
    b.changes.length = 0;
    b.inbox.sync(await b.store.acks.load(), b.inbox.version);
    expect(b.changes).toEqual([]);
    // Another board's ack of a newer bell: the record changes.
    b.inbox.sync(
      [{ machine: 'web1', session: 'a', bell_at: iso(T0 + 4_000), acked_at: T0 + 5_000 }],
      b.inbox.version,
    );
    expect(b.changes).toEqual(['web1']);
    expect(record().acknowledged).toEqual([{ session: 'a', at: iso(T0 + 4_000) }]);
  });
});
