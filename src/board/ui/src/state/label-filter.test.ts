import { describe, expect, it } from 'vitest';
import { parseMachine } from '../api/parse.js';
import {
  bucketOf,
  compareBuckets,
  countBuckets,
  labelKeys,
  passes,
  readFilter,
} from './label-filter.js';

const machine = (name: string, labels: unknown, boardLabels: unknown = [], state = 'up') =>
  parseMachine({ name, origin: 'configured', state, labels, board_labels: boardLabels });

describe('the filter box: words or a selector', () => {
  const web = machine('fra-web1', { site: 'fra', gpu: '' }, ['site']);
  const db = machine('ams-db1', { site: 'ams' }, [], 'down');

  it('reads a plain word as a search by name, and label syntax as a selector', () => {
    expect(readFilter('web')).toEqual({ kind: 'words', needles: ['web'] });
    expect(readFilter('gpu')).toMatchObject({ kind: 'words' });
    for (const q of ['site=fra', 'site!=ams', '!retired', 'site in (fra)', 'site notin (ams)'])
      expect(readFilter(q).kind, q).toBe('selector');
    expect(passes(readFilter('site=fra'), web)).toBe(true);
    expect(passes(readFilter('site=fra'), db)).toBe(false);
    expect(passes(readFilter('gpu,site=fra'), web)).toBe(true);
    expect(passes(readFilter('name=ams-db1'), db)).toBe(true);
  });

  it('names the position of a selector that does not parse, and filters nothing by it', () => {
    const bad = readFilter('site=fra,,x');
    expect(bad).toEqual({ kind: 'error', position: 9, problem: 'expected a label key' });
    expect(passes(bad, db)).toBe(true);
  });

  it('reads labels from the record, dropping pairs that break the rule', () => {
    const m = machine('x', { site: 'fra', Bad: 'x', ok: '<b>', team: 'web' }, ['site', 'nope']);
    expect(m.labels).toEqual({ site: 'fra', team: 'web' });
    expect([...m.boardLabels]).toEqual(['site']);
    expect(machine('old', undefined).labels).toEqual({});
  });

  it('groups by a key: values, then the empty value, then machines without it', () => {
    const none = machine('nas1', {});
    expect(labelKeys([web, db, none])).toEqual(['gpu', 'site']);
    expect(['', null, 'fra', 'ams'].sort(compareBuckets)).toEqual(['ams', 'fra', '', null]);
    expect(bucketOf(web, 'gpu')).toBe('');
    expect(bucketOf(db, 'gpu')).toBeNull();
    expect(countBuckets([web, db, none], 'site')).toEqual(
      new Map([
        ['fra', { up: 1, down: 0 }],
        ['ams', { up: 0, down: 1 }],
        [null, { up: 1, down: 0 }],
      ]),
    );
  });
});
