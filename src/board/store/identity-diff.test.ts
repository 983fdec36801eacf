import { describe, expect, it } from 'vitest';
import { IdentityDiff } from './identity-diff.js';
import { identity } from './state-contract.case.js';

describe('which identities a save writes', () => {
  it('writes nothing when nothing changed, and each identity that changed in any field', () => {
    const diff = new IdentityDiff();
    diff.loaded([identity('a'), identity('b'), identity('c')]);
    expect(diff.against([identity('a'), identity('b'), identity('c')]).upsert).toEqual([]);
    for (const change of [
      { location: 'http://elsewhere:8701' },
      { first_seen: 999 },
      { last_seen: 2_001 },
      { verified: true },
      { key_proof_at: 1_500 },
    ]) {
      const { upsert, remove } = diff.against([
        identity('a'),
        identity('b', change),
        identity('c'),
      ]);
      expect(upsert.map((i) => i.name)).toEqual(['b']);
      expect(remove).toEqual([]);
    }
  });

  it('writes new names, removes gone ones, and compares with what was last committed', () => {
    const diff = new IdentityDiff();
    diff.loaded([identity('a'), identity('b')]);
    const first = diff.against([identity('a'), identity('c')]);
    expect(first.upsert.map((i) => i.name)).toEqual(['c']);
    expect(first.remove).toEqual(['b']);
    // Not committed (the write failed): the next save writes the same again.
    expect(diff.against([identity('a'), identity('c')]).upsert.map((i) => i.name)).toEqual(['c']);
    diff.against([identity('a'), identity('c')]).commit();
    expect(diff.against([identity('a'), identity('c')]).upsert).toEqual([]);
    expect(diff.against([identity('a')]).remove).toEqual(['c']);
  });
});
