import { describe, expect, it } from 'vitest';
import { testBoard } from '../../../test/helpers/board-kit.js';
import type { Report } from '../../shared/wire/report.js';

const report = (mark: number) =>
  ({ name: 'lab1', location: 'http://lab1:8701', hostname: `mark-${mark}` }) as Report;
const marks = (bytes: Buffer) => [...bytes.toString().matchAll(/mark-(\d+)/g)].map((m) => m[1]);
const settle = () => new Promise((resolve) => setTimeout(resolve, 100));

describe('ViewCache', () => {
  it('while GETs keep coming, refreshes a report in the background when the 250 ms are up', async () => {
    const t = testBoard();
    await t.board.report('registration', report(1));
    const first = t.registry.view();
    expect(marks(first.bytes)).toEqual(['1']);
    await t.board.report('registration', report(2));
    // Within the coalescing delay: the bytes before the report, at once.
    expect(t.registry.view()).toBe(first);
    // The board's clock does not move: only the background refresh can make the new bytes.
    let after = t.registry.view();
    for (let i = 0; i < 50 && after === first; i += 1) {
      await settle();
      after = t.registry.view();
    }
    expect(marks(after.bytes)).toEqual(['2']);
    expect(after.etag).not.toBe(first.etag);
    expect(JSON.parse(after.bytes.toString()).machines).toHaveLength(1);
  });

  it('rebuilds at once for a GET after a quiet spell, and after a machine is added', async () => {
    const t = testBoard();
    await t.board.report('registration', report(1));
    expect(marks(t.registry.view().bytes)).toEqual(['1']);
    t.clock.advance(10_000);
    await t.board.report('registration', report(2));
    expect(marks(t.registry.view().bytes)).toEqual(['2']);
    await t.board.report('registration', { ...report(3), name: 'lab2' } as Report);
    expect(marks(t.registry.view().bytes)).toEqual(['2', '3']);
    await settle();
  });
});
