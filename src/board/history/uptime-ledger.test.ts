import { describe, expect, it } from 'vitest';
import type { StateEvent } from './history-store.js';
import { UPTIME_WINDOWS, type UptimeWindow, upMsWithin } from './uptime.js';
import { type ChangeSource, UptimeLedger } from './uptime-ledger.js';

const H = 3_600_000;
const D = 24 * H;

/** The committed changes, as the store would answer them. */
class Changes implements ChangeSource {
  readonly rows: { id: number; at: number; up: boolean }[] = [];
  between(from: number, to: number) {
    return this.rows
      .filter((r) => r.at > from && r.at <= to)
      .sort((a, b) => a.id - b.id || a.at - b.at)
      .map((r) => [r.id, r.at, r.up] as const);
  }
  stateAt(at: number) {
    const last = new Map<number, boolean>();
    for (const r of [...this.rows].sort((a, b) => a.at - b.at))
      if (r.at <= at) last.set(r.id, r.up);
    return [...last];
  }
  of(id: number) {
    return this.rows
      .filter((r) => r.id === id)
      .sort((a, b) => a.at - b.at)
      .map((r) => [r.at, r.up] as const);
  }
  /** The reference: each window summed from the whole list of changes. */
  expected(id: number, now: number): Record<UptimeWindow, number> {
    const events: StateEvent[] = this.of(id).map(([at, up]) => ({
      at,
      state: up ? 'up' : 'down',
      previous: null,
      reason: null,
    }));
    const out = {} as Record<UptimeWindow, number>;
    for (const w of Object.keys(UPTIME_WINDOWS) as UptimeWindow[])
      out[w] = upMsWithin(events, now - UPTIME_WINDOWS[w], now);
    return out;
  }
}

/** A small deterministic generator (the test must be repeatable). */
function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1_103_515_245 + 12_345) % 2_147_483_648;
    return s / 2_147_483_648;
  };
}

describe('UptimeLedger', () => {
  it('matches the sum over every change, read after read, as changes arrive and time passes', () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const rnd = random(seed);
      const changes = new Changes();
      const ledger = new UptimeLedger(changes);
      let now = 1_700_000_000_000;
      ledger.prime(now);
      const last = new Map<number, number>();
      for (let step = 0; step < 400; step += 1) {
        // Time moves on by minutes to days: window starts pass changes, one at a time or many.
        now += Math.floor(rnd() * (rnd() < 0.2 ? 5 * D : 2 * H));
        const id = 1 + Math.floor(rnd() * 6);
        // A change a little before now (written after the sweep that saw it), never before the
        // machine's last one.
        const at = Math.max(last.get(id) ?? 0, now - Math.floor(rnd() * 60_000));
        const up = rnd() < 0.6;
        changes.rows.push({ id, at, up });
        ledger.apply(id, at, up);
        last.set(id, at);
        if (rnd() < 0.5) {
          const got = ledger.read(now, last.keys());
          for (const m of last.keys())
            expect(got.get(m), `seed ${seed} step ${step}`).toEqual(changes.expected(m, now));
        }
      }
    }
  });

  it('counts from a change written before the window starts, and from a machine new since', () => {
    const changes = new Changes();
    const ledger = new UptimeLedger(changes);
    const now = 1_700_000_000_000;
    ledger.prime(now);
    const add = (id: number, at: number, up: boolean) => {
      changes.rows.push({ id, at, up });
      ledger.apply(id, at, up);
    };
    add(1, now - 40 * D, true);
    add(1, now - 20 * D, false);
    add(1, now - 3 * D, true);
    add(2, now - 2 * H, true);
    const got = ledger.read(now + H, [1, 2]);
    expect(got.get(1)).toEqual(changes.expected(1, now + H));
    expect(got.get(1)?.['30d']).toBe(10 * D - H + 3 * D + H);
    expect(got.get(2)).toEqual({ '24h': 3 * H, '7d': 3 * H, '30d': 3 * H });
  });

  it('rebuilds from the store when a change arrives out of order or the clock goes back', () => {
    const changes = new Changes();
    const ledger = new UptimeLedger(changes);
    const now = 1_700_000_000_000;
    ledger.prime(now);
    const add = (at: number, up: boolean) => {
      changes.rows.push({ id: 1, at, up });
      ledger.apply(1, at, up);
    };
    add(now - 5 * H, true);
    add(now - H, false);
    expect(ledger.read(now, [1]).get(1)).toEqual(changes.expected(1, now));
    add(now - 3 * H, false); // older than the last: the store orders it, the ledger rebuilds
    expect(ledger.read(now, [1]).get(1)).toEqual(changes.expected(1, now));
    expect(ledger.read(now - 2 * H, [1]).get(1)).toEqual(changes.expected(1, now - 2 * H));
    // A change after the time asked (a clock set back): that machine is summed from its changes.
    expect(ledger.read(now - 4 * H, [1]).get(1)).toEqual(changes.expected(1, now - 4 * H));
  });

  it('forgets a dropped machine', () => {
    const changes = new Changes();
    const ledger = new UptimeLedger(changes);
    ledger.prime(1000);
    ledger.apply(7, 500, true);
    ledger.drop(7);
    expect(ledger.read(2000, [7]).size).toBe(0);
  });
});
