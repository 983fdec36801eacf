import { describe, expect, it } from 'vitest';
import { testBoard } from '../../../test/helpers/board-kit.js';
import { parseSelector } from '../../shared/selector.js';
import type { Report } from '../../shared/wire/report.js';
import { registrationWho } from '../domain/who.js';

const names = (bytes: Buffer) =>
  (JSON.parse(bytes.toString('utf8')) as { machines: { name: string }[] }).machines.map(
    (m) => m.name,
  );

describe('GET /api/board?selector= answers', () => {
  it('are made in memory used again once read, and never written while read', async () => {
    const t = testBoard();
    for (const [i, site] of ['fra', 'ams', 'fra'].entries())
      await t.board.report(registrationWho(''), {
        name: `lab${i}`,
        location: `http://lab${i}:8701`,
        hostname: `h${i}`,
        labels: { site },
      } as unknown as Report);
    const fra = parseSelector('site=fra');
    const a = t.registry.selectedView(fra);
    const text = a.bytes.toString('utf8');
    expect(names(a.bytes)).toEqual(['lab0', 'lab2']);
    // Lent: the next selection is made elsewhere, and the first answer stays as it was.
    const b = t.registry.selectedView(parseSelector('site=ams'));
    expect(b.bytes.buffer).not.toBe(a.bytes.buffer);
    expect(names(b.bytes)).toEqual(['lab1']);
    expect(a.bytes.toString('utf8')).toBe(text);
    a.release();
    b.release();
    // Given back: the next selection uses that memory again rather than new memory.
    const c = t.registry.selectedView(fra);
    expect([a.bytes.buffer, b.bytes.buffer]).toContain(c.bytes.buffer);
    expect(c.bytes.toString('utf8')).toBe(text);
    c.release();
  });

  it('are given again while no machine changed, and made again after a change', async () => {
    const t = testBoard();
    const report = (site: string) =>
      t.board.report(registrationWho(''), {
        name: 'lab0',
        location: 'http://lab0:8701',
        hostname: 'h0',
        labels: { site },
      } as unknown as Report);
    await report('fra');
    const fra = parseSelector('site=fra');
    const a = t.registry.selectedView(fra);
    const b = t.registry.selectedView(parseSelector(' site=fra '));
    expect(b.bytes).toBe(a.bytes);
    expect(b.etag).toBe(a.etag);
    await report('ams');
    const c = t.registry.selectedView(fra);
    expect(c.etag).not.toBe(a.etag);
    expect(names(c.bytes)).toEqual([]);
    for (const lease of [a, b, c]) lease.release();
  });
});
