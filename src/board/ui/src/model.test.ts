import { describe, expect, it } from 'vitest';
import { parseBoard, parseJournal, parseLiveMessage, parseMachine } from './api/parse.js';
import { chooseLanguage, createI18n, ENGLISH } from './i18n/i18n.js';
import { parseCluster } from './state/cluster.js';
import { readFilter } from './state/label-filter.js';
import { countMachines, type Selection, selectMachines } from './state/select.js';
import { DEFAULT_VIEW, readView, viewSearch } from './url-state.js';

/** The UI's logic that needs no browser: what it accepts from the board, and how it sorts. */

const machine = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  origin: 'configured',
  state: 'up',
  location: `http://${name}.example:8701`,
  last_seen: '2026-01-01T00:00:00.000Z',
  error: null,
  queued: 0,
  overview: null,
  ...extra,
});

describe('parsing what the board sends', () => {
  it('reads a full machine and derives its alarms, newest first', () => {
    const m = parseMachine(
      machine('web1', {
        overview: {
          hostname: 'web1.lan',
          cpu_use: 0.25,
          load: [1, 2, 3],
          memory: { total: 100, free: 40, used: 60 },
          disks: [{ path: '/', total: 10, free: 1, used: 9 }],
          services: [
            { name: 'backup', state: 'running', actions: ['start', 'stop'], board: ['stop'] },
          ],
          sessions: [
            { session: 'a', why: 'attention', text: 'old', at: '2026-01-01T00:00:01Z' },
            { session: 'b', why: 'finished', text: 'ok', at: '2026-01-01T00:00:02Z' },
            { session: 'c', why: 'error', text: 'new', at: '2026-01-01T00:00:03Z' },
          ],
        },
      }),
    );
    expect(m.overview?.memory).toEqual({ total: 100, used: 60 });
    expect(m.overview?.services[0]).toEqual({
      name: 'backup',
      kind: 'command',
      container: null,
      state: 'running',
      actions: ['start', 'stop'],
      board: ['stop'],
      busy: false,
    });
    expect(m.attention.map((s) => s.session)).toEqual(['c', 'a']);
    expect(m.lastSeen).toBe(Date.parse('2026-01-01T00:00:00.000Z'));
  });

  it('alarms: only bells nobody acknowledged, with the sessions the board holds', () => {
    const at = (s: number) => `2026-01-01T00:00:0${s}Z`;
    const m = parseMachine(
      machine('web1', {
        overview: {
          sessions: [
            { session: 'acked', why: 'attention', text: '', at: at(1) },
            { session: 'rang-since', why: 'error', text: '', at: at(5) },
            { session: 'open', why: 'attention', text: '', at: at(3) },
          ],
        },
        acknowledged: [
          { session: 'acked', at: at(1) },
          { session: 'rang-since', at: at(4) },
          { session: 'other', at: 7 },
        ],
        held_sessions: [
          { session: 'held', why: 'attention', text: 'before the restart', at: at(2) },
        ],
      }),
    );
    expect(m.attention.map((s) => s.session)).toEqual(['rang-since', 'open', 'held']);
    expect(countMachines([parseMachine(machine('a', { acknowledged: 'odd' }))]).attention).toBe(0);
  });

  it('is defensive about an announced machine’s partial or odd overview', () => {
    const m = parseMachine(
      machine('lab3', {
        origin: 'announced',
        state: 'sideways',
        queued: -3,
        location: 'javascript:alert(1)',
        overview: {
          cpu_use: 7,
          memory: { total: 0 },
          services: [{ name: 'x', state: 'exploded', board: ['start', 'rm -rf', 'start'] }, 42],
          sessions: 'none',
        },
      }),
    );
    expect(m.state).toBe('down');
    expect(m.queued).toBe(0);
    expect(m.location).toBeNull();
    expect(m.overview?.cpuUse).toBe(1);
    expect(m.overview?.memory).toBeNull();
    expect(m.overview?.services).toEqual([
      {
        name: 'x',
        kind: 'command',
        container: null,
        state: 'unknown',
        actions: [],
        board: ['start'],
        busy: false,
      },
    ]);
    expect(m.overview?.sessions).toEqual([]);
  });

  it('skips an unreadable machine instead of losing the board', () => {
    const board = parseBoard({
      swept_at: null,
      machines: [machine('a'), { nope: 1 }, machine('b')],
    });
    expect(board.machines.map((m) => m.name)).toEqual(['a', 'b']);
    expect(() => parseBoard({ machines: 'x' })).toThrow();
  });

  it('reads live messages and ignores unknown types', () => {
    expect(parseLiveMessage({ type: 'removed', name: 'lab3' })).toEqual({
      type: 'removed',
      name: 'lab3',
    });
    expect(parseLiveMessage({ type: 'future-thing' })).toBeNull();
    const j = parseJournal({
      entries: [{ id: 7, at: 'x', who: 'board', op: 'do', target: 'a/b/start', outcome: 'weird' }],
    });
    expect(j[0]).toMatchObject({ id: '7', outcome: 'weird', status: null, detail: null });
  });

  it('reads the boards of /api/cluster and which of them answered (`self`)', () => {
    const boards = [
      { id: 'a', alive: true },
      { id: 'b', alive: false },
      { id: 7, alive: true },
    ];
    expect(parseCluster({ self: 'b', boards })).toEqual([
      { id: 'a', alive: true, self: false },
      { id: 'b', alive: false, self: true },
    ]);
    // A board without `self` marks none.
    expect(parseCluster({ boards }).some((b) => b.self)).toBe(false);
    expect(parseCluster(null)).toEqual([]);
  });
});

describe('languages', () => {
  const available = ['en', 'de', 'fr', 'pt-BR'].map((code) => ({ code, name: code, source: '' }));

  it('prefers the stored choice, then the browser’s languages, then English', () => {
    expect(chooseLanguage(available, 'fr', ['de-DE'])).toBe('fr');
    expect(chooseLanguage(available, 'xx', ['de-DE', 'fr'])).toBe('de');
    expect(chooseLanguage(available, null, ['pt-BR'])).toBe('pt-BR');
    expect(chooseLanguage(available, null, ['pt-PT'])).toBe('pt-BR');
    expect(chooseLanguage(available, null, ['ja'])).toBe('en');
  });

  it('falls back to English per key and fills placeholders', () => {
    const i18n = createI18n('de', { 'summary.up': 'Läuft: {count}' });
    expect(i18n.t('summary.up', { count: 3 })).toBe('Läuft: 3');
    expect(i18n.t('summary.down', { count: 1 })).toBe(
      (ENGLISH['summary.down'] ?? '').replace('{count}', '1'),
    );
    expect(i18n.t('action.startLabel', { service: 'backup' })).toBe('Start backup on {machine}');
  });
});

describe('selection and the address', () => {
  const all = [
    parseMachine(machine('b', { last_seen: '2026-01-01T00:00:05Z' })),
    parseMachine(machine('a', { state: 'down', last_seen: null })),
    parseMachine(
      machine('c', {
        queued: 2,
        overview: { sessions: [{ session: 's', why: 'attention', text: '', at: '' }] },
      }),
    ),
  ];

  const pick = (q: string, state: Selection['state'], sort: Selection['sort']): Selection => ({
    filter: readFilter(q),
    group: null,
    state,
    sort,
    by: null,
  });

  it('filters by every word and by state, and sorts three ways', () => {
    expect(selectMachines(all, pick('', 'all', 'name')).map((m) => m.name)).toEqual([
      'a',
      'b',
      'c',
    ]);
    expect(selectMachines(all, pick('', 'all', 'state')).map((m) => m.name)).toEqual([
      'a',
      'c',
      'b',
    ]);
    expect(selectMachines(all, pick('', 'all', 'seen')).map((m) => m.name)).toEqual([
      'a',
      'c',
      'b',
    ]);
    expect(selectMachines(all, pick('C.EXAMPLE', 'all', 'name')).map((m) => m.name)).toEqual(['c']);
    expect(selectMachines(all, pick('c example', 'queued', 'name')).map((m) => m.name)).toEqual([
      'c',
    ]);
    expect(selectMachines(all, pick('', 'attention', 'name')).map((m) => m.name)).toEqual(['c']);
    expect(countMachines(all)).toEqual({ total: 3, up: 2, down: 1, attention: 1, queued: 2 });
  });

  it('reads the view from the address, falling back on anything unknown', () => {
    expect(readView('')).toEqual(DEFAULT_VIEW);
    expect(readView('?state=bogus&sort=name&page=-2&per=7&q=web')).toEqual({
      ...DEFAULT_VIEW,
      q: 'web',
    });
    const view = { ...DEFAULT_VIEW, q: 'a b', state: 'down' as const, page: 3 };
    expect(readView(viewSearch(view))).toEqual(view);
    expect(viewSearch(DEFAULT_VIEW)).toBe('');
  });
});
