import { describe, expect, it } from 'vitest';
import { labelsProblem, mergeLabels, parseLabelArg, toLabels } from './labels.js';

describe('labels', () => {
  it('take keys and values as the rule says', () => {
    expect(labelsProblem({ env: 'prod', 'team/web': 'a.b_c-1', gpu: '' })).toBeNull();
    expect(labelsProblem({ [`k${'x'.repeat(62)}`]: 'v' })).toBeNull();
    expect(labelsProblem({ k: `v${'x'.repeat(62)}` })).toBeNull();
  });

  it('refuse anything else, naming the label', () => {
    expect(labelsProblem({ Env: 'prod' })).toMatch(/^label "Env": a key/);
    expect(labelsProblem({ env: 'pr od' })).toMatch(/^label "env": a value/);
    expect(labelsProblem({ env: '-x' })).toMatch(/^label "env"/);
    expect(labelsProblem({ env: 3 })).toBe('label "env": the value must be a string');
    expect(labelsProblem({ [`k${'x'.repeat(63)}`]: 'v' })).toMatch(/^label "kx+": a key/);
    expect(labelsProblem({ name: 'x' })).toMatch(/^label "name": every machine has it/);
    expect(labelsProblem([])).toBe('labels must be an object of "key": "value"');
    const many = Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`k${i}`, 'v']));
    expect(labelsProblem(many)).toBe('at most 32 labels, not 33');
  });

  it('merge with the board winning on the same key', () => {
    const merged = mergeLabels(toLabels({ env: 'prod' }), toLabels({ env: 'dev', site: 'fra' }));
    expect({ ...merged }).toEqual({ env: 'prod', site: 'fra' });
    expect(Object.keys(merged)).toEqual(['env', 'site']);
  });

  it('read a command line --label', () => {
    expect(parseLabelArg('env=prod')).toEqual(['env', 'prod']);
    expect(parseLabelArg('gpu')).toEqual(['gpu', '']);
    expect(() => parseLabelArg('Env=prod')).toThrow(/label "Env"/);
  });
});
