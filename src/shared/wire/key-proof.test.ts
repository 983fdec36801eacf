import { describe, expect, it } from 'vitest';
import { KEY_PROOF_WINDOW_MS, KeyProofCheck, keyProof, timedKeyProof } from './key-proof.js';

const KEY = 'lab-key-0123456789abcdef';
const NOW = Date.parse('2030-01-01T12:00:00.000Z');
const at = (ms: number) => new Date(ms).toISOString();
const report = (time: number, key = KEY) => ({
  name: 'lab3',
  location: 'http://lab3:8701',
  key_proof_at: at(time),
  key_proof: timedKeyProof(key, 'lab3', 'http://lab3:8701', at(time)),
});

describe('KeyProofCheck', () => {
  it('takes a timed proof within 5 minutes, each time newer than the last', () => {
    const check = new KeyProofCheck();
    expect(check.problem(KEY, report(NOW - KEY_PROOF_WINDOW_MS + 1000), NOW)).toBeNull();
    expect(check.problem(KEY, report(NOW), NOW)).toBeNull();
    expect(check.problem(KEY, report(NOW + 1000), NOW)).toBeNull();
  });

  it('refuses a replayed, stale, future, forged or re-timed proof', () => {
    const check = new KeyProofCheck();
    const first = report(NOW);
    expect(check.problem(KEY, first, NOW)).toBeNull();
    expect(check.problem(KEY, first, NOW + 10_000)).toMatch(/not newer/);
    expect(check.problem(KEY, report(NOW - 6 * 60_000), NOW)).toMatch(/5 minutes/);
    expect(check.problem(KEY, report(NOW + 6 * 60_000), NOW)).toMatch(/5 minutes/);
    expect(check.problem(KEY, report(NOW + 1, 'other-key-0123456789'), NOW)).toMatch(/wrong/);
    expect(check.problem(KEY, { ...first, key_proof_at: at(NOW + 5) }, NOW)).toMatch(/wrong/);
    expect(check.problem(KEY, { ...first, key_proof_at: 'yesterday' }, NOW)).toMatch(/ISO 8601/);
    expect(check.problem(KEY, { name: 'lab3', location: 'http://lab3:8701' }, NOW)).toMatch(
      /no key_proof/,
    );
  });

  it('takes the untimed proof of earlier agents until the name has sent a timed one', () => {
    const check = new KeyProofCheck();
    const legacy = {
      name: 'lab3',
      location: 'http://lab3:8701',
      key_proof: keyProof(KEY, 'lab3', 'http://lab3:8701'),
    };
    expect(check.problem(KEY, legacy, NOW)).toBeNull();
    expect(
      check.problem(
        KEY,
        { ...legacy, key_proof: keyProof('x'.repeat(20), 'lab3', 'http://lab3:8701') },
        NOW,
      ),
    ).toMatch(/wrong/);
    expect(check.problem(KEY, report(NOW), NOW)).toBeNull();
    expect(check.problem(KEY, legacy, NOW)).toMatch(/untimed/);
  });
});
