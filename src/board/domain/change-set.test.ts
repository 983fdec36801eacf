import { describe, expect, it } from 'vitest';
import { testBoard } from '../../../test/helpers/board-kit.js';
import type { ChangeSet } from './change-set.js';
import { BOARD_WHO, registrationWho } from './who.js';

const KEY = 'machine-key-0123456789';
const machines = [{ name: 'web1', url: 'http://127.0.0.1:1', key: KEY }];
const overview = (extra: Record<string, unknown> = {}) => ({
  cpu_use: 0.25,
  load: [1.5, 1, 0.5],
  memory: { total: 1000, free: 250, used: 750 },
  disks: [
    { path: '/', total: 100, free: 50, used: 50 },
    { path: '/data', total: 100, free: 10, used: 90 },
  ],
  sessions: [],
  ...extra,
});

function collect(t: ReturnType<typeof testBoard>): ChangeSet[] {
  const sets: ChangeSet[] = [];
  t.registry.changes.subscribe((s) => sets.push(s));
  return sets;
}

describe('the per-sweep change set', () => {
  it('one sweep closes one set: exact transitions, changed names and every machine', async () => {
    const t = testBoard({ machines, registration_token: 'registration-token-0123' });
    const sets = collect(t);
    t.client.overviews.set('http://127.0.0.1:1', { ok: true, overview: overview() });
    await t.board.report(registrationWho(''), { name: 'lab1', location: 'http://lab1:1/' });
    await t.board.sweep();
    expect(sets).toHaveLength(1);
    const [first] = sets;
    expect(first?.seq).toBe(1);
    expect(first?.transitions.map((x) => [x.name, x.previous, x.state])).toEqual([
      ['lab1', null, 'up'],
      ['web1', null, 'up'],
    ]);
    expect([...(first?.changed ?? [])].sort()).toEqual(['lab1', 'web1']);
    const web1 = [...(first?.machines() ?? [])].find((m) => m.name === 'web1');
    expect(web1?.metrics).toMatchObject({ cpu: 0.25, mem: 0.75, load: 1.5, disk: 0.9 });
    expect(web1?.metrics?.latencyMs).toEqual(expect.any(Number));
    // No state changes: the next set has no transitions; only the polled machine changed
    // (its last_seen), not the announced one that did not report.
    await t.board.sweep();
    expect(sets[1]?.transitions).toEqual([]);
    expect([...(sets[1]?.changed ?? [])]).toEqual(['web1']);
    // It goes down: one transition with its reason, exact time.
    t.client.overviews.delete('http://127.0.0.1:1');
    t.clock.advance(1234);
    await t.board.sweep();
    expect(sets[2]?.transitions).toEqual([
      {
        name: 'web1',
        origin: 'configured',
        at: t.clock.now(),
        state: 'down',
        previous: 'up',
        reason: 'connection refused',
      },
    ]);
  });

  it('reports a bell once, and not those rung before the board first saw the machine', async () => {
    const t = testBoard({ registration_token: 'registration-token-0123' });
    const sets = collect(t);
    const bell = (session: string, at: string) => ({ session, why: 'attention', text: 'hi', at });
    const report = (sessions: unknown[]) =>
      t.board.report(registrationWho(''), {
        name: 'lab1',
        location: 'http://lab1:1/',
        ...overview({ sessions }),
      } as never);
    await report([bell('old', '2026-01-01T00:00:00.000Z')]);
    await report([
      bell('old', '2026-01-01T00:00:00.000Z'),
      bell('new', '2026-01-01T00:01:00.000Z'),
    ]);
    await report([
      bell('old', '2026-01-01T00:00:00.000Z'),
      bell('new', '2026-01-01T00:01:00.000Z'),
    ]);
    await t.board.sweep();
    expect(sets[0]?.bells.map((b) => b.session)).toEqual(['new']);
    const lab1 = [...(sets[0]?.machines() ?? [])][0];
    expect(lab1?.metrics?.bells).toBe(2);
  });

  it('an announced machine is late after twice its interval, up until stale_after', async () => {
    const t = testBoard({ registration_token: 'registration-token-0123', stale_after: 60 });
    const sets = collect(t);
    await t.board.report(registrationWho(''), {
      name: 'lab1',
      location: 'http://lab1:1/',
      interval_s: 10,
    });
    t.clock.advance(19_000);
    await t.board.upkeep();
    expect(t.registry.get('lab1')?.late).toBe(false);
    t.clock.advance(1_000);
    await t.board.upkeep();
    const board = JSON.parse(t.registry.view().bytes.toString('utf8'));
    expect(board.machines[0]).toMatchObject({ state: 'up', late: true });
    t.clock.advance(40_000);
    await t.board.upkeep();
    expect(t.registry.get('lab1')).toMatchObject({ state: 'down', late: false });
    await t.board.sweep();
    expect(sets[0]?.late.map((l) => l.late)).toEqual([true]);
    expect(sets[0]?.transitions.map((x) => x.state)).toEqual(['up', 'down']);
    expect(sets[0]?.transitions[1]?.reason).toBe('no report for 60 s');
  });

  it('carries removed names and failed actions', async () => {
    const t = testBoard({ machines, registration_token: 'registration-token-0123' });
    const sets = collect(t);
    await t.board.report(registrationWho(''), { name: 'lab1', location: 'http://lab1:1/' });
    await t.board.forget(BOARD_WHO, 'lab1');
    t.client.answers.set('http://127.0.0.1:1', {
      kind: 'answer',
      status: 500,
      body: { detail: 'boom' },
    });
    await t.board.doAction(BOARD_WHO, 'web1', 'job', 'start');
    await t.board.sweep();
    expect(sets[0]?.removed).toEqual(['lab1']);
    expect(sets[0]?.changed.has('lab1')).toBe(false);
    expect(sets[0]?.actionsFailed).toEqual([
      expect.objectContaining({ name: 'web1', what: 'job', action: 'start', status: 500 }),
    ]);
  });
});
