import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.js';
import { EventHub } from '../domain/events.js';
import { Journal } from '../domain/journal.js';
import { MemoryStore } from '../store/memory/state-store.js';
import { Access } from './access.js';
import { LocalPeople } from './local-people.js';
import { LocalSignIn } from './local-sign-in.js';
import { WHOLE_BOARD } from './roles.js';

const ADMIN = { word: 'board', actor: { kind: 'board_token', name: 'board_token' } } as const;
const PASSWORD = 'twelve chars or more';

function setUp() {
  const clock = new ManualClock();
  const store = new MemoryStore();
  const journal = new Journal(clock, new EventHub(), store.journal, []);
  const access = new Access(store.auth, clock, journal);
  return {
    clock,
    access,
    journal,
    people: new LocalPeople(access),
    signIn: new LocalSignIn(access),
  };
}

const secretOf = (link: string) => link.slice(link.indexOf('#signup=') + 8);

describe('one-time links', () => {
  it('work for 24 hours and not a moment after', async () => {
    const { clock, people, signIn } = setUp();
    const added = await people.add(ADMIN, WHOLE_BOARD, 'ada', [], 'https://board.example');
    if (!('ok' in added)) throw new Error(added.detail);
    expect(added.ok.link).toMatch(/^https:\/\/board\.example\/#signup=/);
    const secret = secretOf(added.ok.link);
    clock.advance(24 * 3600_000 - 1);
    expect(await signIn.link('192.0.2.1', secret)).toHaveProperty('invite');
    clock.advance(1);
    expect(await signIn.link('192.0.2.1', secret)).toMatchObject({ status: 404 });
    expect(await signIn.signupPassword('192.0.2.1', secret, PASSWORD)).toMatchObject({
      status: 404,
    });
  });

  it('are used once; a new one replaces the old; only the digest is kept', async () => {
    const { access, people, signIn } = setUp();
    const added = await people.add(ADMIN, WHOLE_BOARD, 'ada', [], 'http://localhost:8700');
    if (!('ok' in added)) throw new Error(added.detail);
    const first = secretOf(added.ok.link);
    const again = await people.link(ADMIN, 'ada', 'http://localhost:8700');
    if (!('ok' in again)) throw new Error(again.detail);
    const second = secretOf(again.ok.link);
    expect(await signIn.link('192.0.2.1', first)).toMatchObject({ status: 404 });
    const stored = JSON.stringify(await access.invites.find(second));
    expect(stored).not.toContain(second);
    const done = await signIn.signupPassword('192.0.2.1', second, PASSWORD);
    expect(done).toMatchObject({ ok: { name: 'ada' } });
    expect(await signIn.signupPassword('192.0.2.1', second, PASSWORD)).toMatchObject({
      status: 404,
    });
    expect((await access.people.get('ada'))?.password).toMatch(/^\$argon2id\$/);
  });

  it('a password sign-in starts a new session each time and is journaled; a failure too', async () => {
    const { people, signIn, journal, access } = setUp();
    const added = await people.add(ADMIN, WHOLE_BOARD, 'ada', [], 'http://localhost');
    if (!('ok' in added)) throw new Error(added.detail);
    await signIn.signupPassword('192.0.2.1', secretOf(added.ok.link), PASSWORD);
    const a = await signIn.password('192.0.2.2', 'ada', PASSWORD);
    const b = await signIn.password('192.0.2.2', 'ada', PASSWORD);
    if (!('ok' in a) || !('ok' in b)) throw new Error('not signed in');
    expect(a.ok.secret).not.toBe(b.ok.secret);
    expect((await access.sessions.find(a.ok.secret))?.via).toBe('password');
    expect(await signIn.password('192.0.2.2', 'ada', 'wrong password!')).toMatchObject({
      status: 401,
    });
    const outcomes = (await journal.served(50)).map((e) => `${e.target} ${e.outcome}`);
    expect(outcomes).toEqual(
      expect.arrayContaining(['ada person_added', 'ada signed_up', 'ada signed_in', 'ada refused']),
    );
    expect(JSON.stringify(await journal.served(50))).not.toContain(PASSWORD);
  });

  it("a removed person's sessions, API tokens and link stop working", async () => {
    const { people, signIn, access } = setUp();
    const added = await people.add(
      ADMIN,
      WHOLE_BOARD,
      'ada',
      [{ role: 'viewer', selector: null }],
      'http://localhost',
    );
    if (!('ok' in added)) throw new Error(added.detail);
    const signed = await signIn.signupPassword('192.0.2.1', secretOf(added.ok.link), PASSWORD);
    if (!('ok' in signed)) throw new Error(signed.detail);
    const { token } = await access.tokens.create(
      'script',
      [{ role: 'viewer', selector: null }],
      'ada',
      null,
    );
    const relink = await people.link(ADMIN, 'ada', 'http://localhost');
    if (!('ok' in relink)) throw new Error(relink.detail);
    expect(await access.tokens.find(token)).not.toBeNull();
    expect(await people.remove(ADMIN, 'ada')).toEqual({ ok: { name: 'ada' } });
    expect(await access.sessions.find(signed.ok.secret)).toBeNull();
    expect(await access.tokens.find(token)).toBeNull();
    expect(await signIn.link('192.0.2.1', secretOf(relink.ok.link))).toMatchObject({ status: 404 });
    expect(await people.remove(ADMIN, 'ada')).toMatchObject({ status: 404 });
  });
});
