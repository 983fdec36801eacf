/** The history contract's state changes, uptime from them, and what retention and forgetting drop. */
import { describe, expect, it } from 'vitest';
import type { HistoryStore, StateEvent, WriteBatch } from '../history/history-store.js';
import { rawSample } from '../history/tiers.js';
import { upMsWithin } from '../history/uptime.js';
import { agg, batch, T0, values } from './history-contract-kit.case.js';

/**
 * The contract every HistoryStore passes, after storeRowsContract: each implementation's test
 * file calls both with a factory of fresh, empty stores.
 */
export function storeChangesContract(kind: string, open: () => Promise<HistoryStore>): void {
  describe(`HistoryStore contract: ${kind}`, () => {
    it('lists state changes most recent first, up to the limit, and knows the name by them', async () => {
      const store = await open();
      const at = T0 * 1000;
      await store.write(
        batch({
          events: [
            { name: 'alpha', at, state: 'up', previous: null, reason: null },
            { name: 'alpha', at: at + 5000, state: 'down', previous: 'up', reason: 'timed out' },
            { name: 'alpha', at: at + 9000, state: 'up', previous: 'down', reason: null },
          ],
        }),
      );
      expect(await store.has('alpha')).toBe(true);
      expect(await store.has('ALPHA')).toBe(false);
      expect(await store.events('alpha', 2)).toEqual([
        { at: at + 9000, state: 'up', previous: 'down', reason: null },
        { at: at + 5000, state: 'down', previous: 'up', reason: 'timed out' },
      ]);
      await store.close();
    });

    it('totals the time up in each uptime window exactly, from state changes, since first seen', async () => {
      const store = await open();
      const now = T0 * 1000;
      const H = 3_600_000;
      const D = 24 * H;
      await store.write(
        batch({
          events: [
            { name: 'alpha', at: now - 10 * D, state: 'up', previous: null, reason: null },
            { name: 'alpha', at: now - 2 * D, state: 'down', previous: 'up', reason: 'x' },
            { name: 'alpha', at: now - 2 * D + 3 * H, state: 'up', previous: 'down', reason: null },
            { name: 'alpha', at: now - 2 * H, state: 'down', previous: 'up', reason: 'y' },
            { name: 'alpha', at: now - H, state: 'up', previous: 'down', reason: null },
            { name: 'beta', at: now - 40 * D, state: 'down', previous: null, reason: 'refused' },
            { name: 'beta', at: now - 5 * H, state: 'up', previous: 'down', reason: null },
          ],
        }),
      );
      expect(await store.uptimeTotals(now)).toEqual([
        {
          name: 'alpha',
          firstSeen: now - 10 * D,
          upMs: { '24h': 23 * H, '7d': 7 * D - 4 * H, '30d': 10 * D - 4 * H },
        },
        {
          name: 'beta',
          firstSeen: now - 40 * D,
          upMs: { '24h': 5 * H, '7d': 5 * H, '30d': 5 * H },
        },
      ]);
      await store.close();
    });

    it('keeps uptime exact as changes are written and time passes between reads', async () => {
      const store = await open();
      const H = 3_600_000;
      const D = 24 * H;
      const t0 = T0 * 1000;
      const written: ({ name: string } & StateEvent)[] = [];
      const write = async (name: string, at: number, state: 'up' | 'down') => {
        const e = { name, at, state, previous: null, reason: null };
        written.push(e);
        await store.write(batch({ events: [e] }));
      };
      const expected = (now: number) =>
        ['alpha', 'beta'].map((name) => {
          const mine = written.filter((e) => e.name === name).sort((a, b) => a.at - b.at);
          const within = (w: number) => upMsWithin(mine, now - w, now);
          return {
            name,
            firstSeen: mine[0]?.at,
            upMs: { '24h': within(D), '7d': within(7 * D), '30d': within(30 * D) },
          };
        });
      await write('alpha', t0, 'up');
      await write('beta', t0 + H, 'down');
      expect(await store.uptimeTotals(t0 + 2 * H)).toEqual(expected(t0 + 2 * H));
      await write('alpha', t0 + 3 * H, 'down');
      await write('beta', t0 + 3 * H, 'up');
      // Each read later than the one before: window starts pass the changes one after another.
      for (const now of [4 * H, 25 * H, 26 * H, 3 * D, 8 * D, 8 * D + 2 * H, 31 * D, 40 * D]) {
        expect(await store.uptimeTotals(t0 + now)).toEqual(expected(t0 + now));
        if (now === 8 * D) await write('alpha', t0 + now - 1000, 'up');
      }
      await store.close();
    });

    it('drops a machine once retention has emptied it (no rows left, no state change since)', async () => {
      const store = await open();
      const at = T0 * 1000;
      await store.write(
        batch({
          samples: [
            { tier: 'raw', name: 'alpha', sample: rawSample(T0, true, values(0.5)) },
            { tier: 'h1', name: 'beta', sample: agg(T0 + 3600, 1, 0.2, 0.2) },
          ],
          events: [
            { name: 'alpha', at, state: 'up', previous: null, reason: null },
            { name: 'beta', at, state: 'up', previous: null, reason: null },
            { name: 'gamma', at: at + 5000, state: 'down', previous: null, reason: 'r' },
          ],
        }),
      );
      // Past every cutoff for alpha; beta keeps an hourly row; gamma's change is within retention.
      await store.write(batch({ cutoffs: { raw: T0 + 10, m5: T0 + 10, h1: T0 + 1 } }));
      expect(await store.has('alpha')).toBe(false);
      expect(await store.events('alpha', 10)).toEqual([]);
      expect(await store.has('beta')).toBe(true);
      expect(await store.has('gamma')).toBe(true);
      expect((await store.uptimeTotals(at + 10_000)).map((u) => u.name)).toEqual(['beta', 'gamma']);
      await store.close();
    });

    it('forgets a machine at once; the same name seen again starts a new history', async () => {
      const store = await open();
      await store.write(
        batch({
          samples: [{ tier: 'raw', name: 'alpha', sample: rawSample(T0, true, values(0.5)) }],
          events: [{ name: 'alpha', at: T0 * 1000, state: 'up', previous: null, reason: null }],
        }),
      );
      await store.write(batch({ forget: ['alpha'] }));
      expect(await store.has('alpha')).toBe(false);
      expect(await store.samples('alpha', 'raw', 0, T0 * 2)).toEqual([]);
      expect(await store.events('alpha', 10)).toEqual([]);
      expect(await store.uptimeTotals(T0 * 1000)).toEqual([]);
      await store.write(
        batch({
          events: [
            { name: 'alpha', at: T0 * 1000 + 60_000, state: 'down', previous: null, reason: 'r' },
          ],
        }),
      );
      expect(await store.samples('alpha', 'raw', 0, T0 * 2)).toEqual([]);
      expect((await store.uptimeTotals(T0 * 1000 + 120_000))[0]?.firstSeen).toBe(
        T0 * 1000 + 60_000,
      );
      await store.close();
    });

    it('prunes the rows older than each tier cutoff', async () => {
      const store = await open();
      const samples: WriteBatch['samples'] = [];
      for (let i = 0; i < 20; i += 1) {
        samples.push({
          tier: 'raw',
          name: 'alpha',
          sample: rawSample(T0 + i * 5, true, values(0.1)),
        });
      }
      samples.push({ tier: 'm5', name: 'alpha', sample: agg(T0, 1, 0.2, 0.2) });
      samples.push({ tier: 'm5', name: 'alpha', sample: agg(T0 + 300, 1, 0.2, 0.2) });
      await store.write(batch({ samples }));
      await store.write(batch({ cutoffs: { raw: T0 + 50, m5: T0 + 300, h1: 0 } }));
      const raw = await store.samples('alpha', 'raw', 0, T0 * 2);
      expect(raw.map((r) => r.t)).toEqual(Array.from({ length: 10 }, (_, i) => T0 + 50 + i * 5));
      expect((await store.samples('alpha', 'm5', 0, T0 * 2)).map((r) => r.t)).toEqual([T0 + 300]);
      await store.close();
    });
  });
}
