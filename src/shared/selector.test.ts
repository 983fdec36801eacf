import { describe, expect, it } from 'vitest';
import { toLabels } from './labels.js';
import { parseSelector, SelectorError } from './selector.js';

const prod = toLabels({ env: 'prod', site: 'fra', gpu: '' });
const dev = toLabels({ env: 'dev', site: 'ams', retired: 'yes' });
const bare = toLabels({});

function picks(text: string): string[] {
  const s = parseSelector(text);
  return (
    [
      ['a', prod],
      ['b', dev],
      ['c', bare],
    ] as const
  )
    .filter(([name, labels]) => s.matches(labels, name))
    .map(([name]) => name);
}

function errorOf(text: string): SelectorError {
  try {
    parseSelector(text);
  } catch (error) {
    if (error instanceof SelectorError) return error;
    throw error;
  }
  throw new Error(`"${text}" parsed`);
}

describe('selectors', () => {
  it('select by equality, inequality, sets, existence and absence, all joined by commas', () => {
    expect(picks('')).toEqual(['a', 'b', 'c']);
    expect(picks('env=prod')).toEqual(['a']);
    expect(picks('env==prod')).toEqual(['a']);
    expect(picks('env!=prod')).toEqual(['b', 'c']);
    expect(picks('site in (fra, ams)')).toEqual(['a', 'b']);
    expect(picks('site notin (fra)')).toEqual(['b', 'c']);
    expect(picks('gpu')).toEqual(['a']);
    expect(picks('!retired')).toEqual(['a', 'c']);
    expect(picks('env=prod,site in (fra,ams),!retired')).toEqual(['a']);
    expect(picks(' env = dev , retired ')).toEqual(['b']);
    expect(picks('gpu=')).toEqual(['a']);
  });

  it('match every machine by its name, which is not among its labels', () => {
    expect(picks('name=b')).toEqual(['b']);
    expect(picks('name in (a,c)')).toEqual(['a', 'c']);
    expect(picks('name!=a,env')).toEqual(['b']);
  });

  it('name the position of what is wrong', () => {
    expect(errorOf('env=prod,,x').position).toBe(9);
    expect(errorOf('env=prod site=x').position).toBe(9);
    expect(errorOf('Env=prod').position).toBe(0);
    expect(errorOf('env=pr*d').position).toBe(6);
    expect(errorOf('site in fra').position).toBe(8);
    expect(errorOf('site in (fra').position).toBe(12);
    expect(errorOf('site within (fra)').position).toBe(5);
    expect(errorOf('env=prod,').position).toBe(9);
    expect(errorOf('env=prod,').message).toBe('selector: expected a label key at position 9');
    expect(errorOf('x'.repeat(5000)).position).toBe(4096);
  });
});
