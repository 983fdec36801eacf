import { describe, expect, it } from 'vitest';
import { testBoard } from '../../../test/helpers/board-kit.js';
import { registrationWho } from './who.js';

const KEY = 'machine-key-0123456789';
const machines = [
  { name: 'web2', url: 'http://127.0.0.1:2', key: KEY },
  { name: 'web1', url: 'http://127.0.0.1:1', key: KEY },
];

function view(t: ReturnType<typeof testBoard>) {
  return JSON.parse(t.registry.view().bytes.toString('utf8'));
}

describe('Registry', () => {
  it('lists every machine sorted by name, down until first polled, with no key', () => {
    const t = testBoard({ machines });
    const v = view(t);
    expect(v.machines.map((m: { name: string }) => m.name)).toEqual(['web1', 'web2']);
    expect(v.machines[0]).toEqual({
      name: 'web1',
      origin: 'configured',
      state: 'down',
      late: false,
      location: 'http://127.0.0.1:1',
      // No board has polled it yet.
      board: null,
      last_seen: null,
      error: 'not polled yet',
      queued: 0,
      silenced_until: null,
      agent: {
        version: null,
        sha256: null,
        update_available: false,
        updates: 'off',
        last_update: null,
      },
      labels: {},
      board_labels: [],
      overview: null,
    });
    expect(JSON.stringify(v)).not.toContain(KEY);
  });

  it('a sweep marks each machine up or down through observe', async () => {
    const t = testBoard({ machines });
    t.client.overviews.set('http://127.0.0.1:1', { ok: true, overview: { name: 'web1', cpus: 2 } });
    await t.board.sweep();
    const [web1, web2] = view(t).machines;
    expect(web1).toMatchObject({ state: 'up', error: null, overview: { cpus: 2 } });
    expect(web1.last_seen).toBe(new Date(t.clock.now()).toISOString());
    expect(web2).toMatchObject({ state: 'down', error: 'connection refused', overview: null });
    expect(t.client.polls.map((p) => p.key)).toEqual([KEY, KEY]);
  });

  it('keeps the view bytes until something changes, and changes the ETag then', async () => {
    const t = testBoard({ machines });
    const first = t.registry.view();
    const again = t.registry.view();
    expect(again.etag).toBe(first.etag);
    expect(again.bytes).toBe(first.bytes);
    t.client.overviews.set('http://127.0.0.1:1', { ok: true, overview: { n: 1 } });
    await t.board.sweep();
    const second = t.registry.view();
    expect(second.etag).not.toBe(first.etag);
    // The same failure again changes nothing for web2, but the sweep time is new.
    expect(t.registry.view().bytes).toBe(second.bytes);
  });

  it('does not re-announce a failure that did not change', () => {
    const t = testBoard({ machines });
    const m = t.registry.get('web1');
    if (m === undefined) throw new Error('no web1');
    t.registry.observe(m, { ok: false, error: 'x' });
    t.registry.observe(m, { ok: false, error: 'x' });
    expect(t.changes).toEqual(['web1']);
  });

  it('announced machines go down after stale_after and stay listed', async () => {
    const t = testBoard({ stale_after: 60 });
    await t.board.report(registrationWho(''), { name: 'lab3', location: 'http://lab3:8701' });
    expect(view(t).machines[0]).toMatchObject({ name: 'lab3', origin: 'announced', state: 'up' });
    t.clock.advance(59_000);
    t.registry.markStale(60_000);
    expect(view(t).machines[0].state).toBe('up');
    t.clock.advance(1_000);
    t.registry.markStale(60_000);
    expect(view(t).machines[0]).toMatchObject({ state: 'down', error: 'no report for 60 s' });
    t.clock.advance(3_600_000);
    t.registry.markStale(60_000);
    expect(view(t).machines).toHaveLength(1);
  });

  it('refuses new announced names past the cap, but still takes reports from known ones', () => {
    const t = testBoard({ max_announced: 2 });
    expect('machine' in t.registry.announce('a', 'http://a')).toBe(true);
    expect('machine' in t.registry.announce('b', 'http://b')).toBe(true);
    expect(t.registry.announce('c', 'http://c')).toEqual({ refused: 'cap', cap: 2 });
    expect(t.registry.announce('a', 'http://a')).toMatchObject({ created: false });
    t.registry.forget('a');
    expect(t.registry.announce('c', 'http://c')).toMatchObject({ created: true });
  });

  it('restores identities as down and never forgets a configured machine', () => {
    const t = testBoard({ machines });
    t.registry.restore([{ name: 'lab3', location: 'http://lab3', first_seen: 1, last_seen: 2 }]);
    expect(view(t).machines[0]).toMatchObject({
      name: 'lab3',
      state: 'down',
      last_seen: new Date(2).toISOString(),
      error: 'no report since the board restarted',
    });
    t.registry.forget('web1');
    expect(t.registry.get('web1')).toBeDefined();
  });
});
