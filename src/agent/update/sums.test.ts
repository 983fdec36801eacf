import { describe, expect, it } from 'vitest';
import { atStart, outcome, type UpdateRecord } from './state.js';
import { parseSha256Sums } from './sums.js';

const A = 'a'.repeat(64);
const B = 'b'.repeat(64);

describe('parseSha256Sums', () => {
  it('reads sha256sum lines, text and binary mode, and skips the rest', () => {
    const sums = parseSha256Sums(
      `${A}  panoptes-agent.mjs\n${B.toUpperCase()} *panoptes-agent-linux-x64\r\nnot a line\n\n`,
    );
    expect([...sums]).toEqual([
      ['panoptes-agent.mjs', A],
      ['panoptes-agent-linux-x64', B],
    ]);
  });

  it('drops a name listed twice with different sums', () => {
    const sums = parseSha256Sums(`${A}  f\n${B}  f\n${A}  g\n${A}  g\n`);
    expect(sums.has('f')).toBe(false);
    expect(sums.get('g')).toBe(A);
  });
});

describe('the update record at start', () => {
  const record: UpdateRecord = {
    state: 'trying',
    file: 'panoptes-agent.mjs',
    path: '/opt/panoptes-agent.mjs',
    from_sha256: A,
    to_sha256: B,
    started_at: '2026-01-01T00:00:00.000Z',
  };

  it('the new file on trial confirms; the old file after a kill settles it as interrupted', () => {
    expect(atStart(record, B).kind).toBe('trial');
    expect(atStart(record, A).kind).toBe('interrupted');
    expect(atStart(record, null).kind).toBe('interrupted');
  });

  it('nothing to do without a record or once it is settled', () => {
    expect(atStart(null, A).kind).toBe('none');
    expect(atStart({ ...record, state: 'confirmed' }, B).kind).toBe('none');
    expect(atStart({ ...record, state: 'rolled_back' }, A).kind).toBe('none');
  });

  it('an outcome detail is one clean line of at most 200 characters', () => {
    const o = outcome('rolled_back', B, `exit\n\u001b[31mred${'x'.repeat(300)}`, new Date(0), 'r1');
    expect(o.detail.startsWith('exit \ufffd[31mred')).toBe(true);
    expect(o.detail.length).toBeLessThanOrEqual(200);
    expect(o).toMatchObject({
      state: 'rolled_back',
      at: '1970-01-01T00:00:00.000Z',
      request_id: 'r1',
    });
  });
});
