import {
  batchSamples,
  type HistoryStore,
  METRICS,
  type Sample,
  type StateEvent,
  type TierName,
  type UptimeTotals,
  type WriteBatch,
} from '../../history/history-store.js';
import { mergeSamples } from '../../history/tiers.js';
import { UPTIME_WINDOWS, upMsWithin } from '../../history/uptime.js';
import { SCALE, UP_SCALE } from '../scaled-values.js';

interface Kept {
  firstSeen: number | null;
  tiers: Record<TierName, Map<number, Sample>>;
  events: StateEvent[];
}

/** A HistoryStore in memory: for domain tests, and the reference the contract test reads. */
export class MemoryHistoryStore implements HistoryStore {
  private readonly machines = new Map<string, Kept>();

  async write(batch: WriteBatch): Promise<void> {
    for (const name of batch.forget) this.machines.delete(name);
    for (const { tier, name, sample } of batchSamples(batch)) {
      const rows = this.kept(name).tiers[tier];
      const held = rows.get(sample.t);
      rows.set(sample.t, held === undefined ? stored(sample) : storedMerge(held, sample));
    }
    for (const { name, ...event } of batch.events) {
      const kept = this.kept(name);
      kept.events.push(event);
      if (kept.firstSeen === null || event.at < kept.firstSeen) kept.firstSeen = event.at;
    }
    for (const [name, kept] of this.machines) {
      let rows = 0;
      for (const tier of Object.keys(kept.tiers) as TierName[]) {
        for (const t of kept.tiers[tier].keys())
          if (t < batch.cutoffs[tier]) kept.tiers[tier].delete(t);
        rows += kept.tiers[tier].size;
      }
      // Retention emptied it: no rows left and no state change since the hourly cutoff.
      const recent = kept.events.some((e) => e.at >= batch.cutoffs.h1 * 1000);
      if (rows === 0 && !recent) this.machines.delete(name);
    }
  }

  async samples(
    name: string,
    tier: TierName,
    fromS: number,
    toS: number,
    stepS = 1,
  ): Promise<Sample[]> {
    const rows = this.machines.get(name)?.tiers[tier];
    if (rows === undefined) return [];
    const buckets = new Map<number, Sample>();
    for (const row of [...rows.values()].sort((a, b) => a.t - b.t)) {
      if (row.t < fromS || row.t >= toS) continue;
      const t = fromS + Math.floor((row.t - fromS) / stepS) * stepS;
      const held = buckets.get(t);
      buckets.set(t, held === undefined ? { ...row, t } : mergeSamples(held, row));
    }
    return [...buckets.values()];
  }

  async events(name: string, limit: number): Promise<StateEvent[]> {
    const events = this.machines.get(name)?.events ?? [];
    return [...events].sort((a, b) => b.at - a.at).slice(0, limit);
  }

  async uptimeTotals(nowMs: number): Promise<UptimeTotals[]> {
    const out: UptimeTotals[] = [];
    for (const [name, kept] of this.machines) {
      if (kept.firstSeen === null) continue;
      const sorted = [...kept.events].sort((a, b) => a.at - b.at);
      const within = (w: number) => upMsWithin(sorted, nowMs - w, nowMs);
      out.push({
        name,
        firstSeen: kept.firstSeen,
        upMs: {
          '24h': within(UPTIME_WINDOWS['24h']),
          '7d': within(UPTIME_WINDOWS['7d']),
          '30d': within(UPTIME_WINDOWS['30d']),
        },
      });
    }
    return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  async has(name: string): Promise<boolean> {
    return this.machines.has(name);
  }

  async close(): Promise<void> {}

  private kept(name: string): Kept {
    let kept = this.machines.get(name);
    if (kept === undefined) {
      kept = {
        firstSeen: null,
        tiers: { raw: new Map(), m5: new Map(), h1: new Map() },
        events: [],
      };
      this.machines.set(name, kept);
    }
    return kept;
  }
}

/** A sample as the file engines keep it: each value a scaled integer, rounded half up. */
function stored(sample: Sample): Sample {
  const avg = { ...sample.avg };
  const max = { ...sample.max };
  for (const k of METRICS) {
    const scale = SCALE[k];
    const a = avg[k];
    const m = max[k];
    avg[k] = a === null ? null : Math.round(a * scale) / scale;
    max[k] = m === null ? null : Math.round(m * scale) / scale;
  }
  return { ...sample, up: Math.round(sample.up * UP_SCALE) / UP_SCALE, avg, max };
}

/** A bucket written twice: the stored averages merged by weight in integers, truncated. */
function storedMerge(held: Sample, sample: Sample): Sample {
  const next = stored(sample);
  const merged = mergeSamples(held, next);
  const n = held.n + next.n;
  const weighted = (x: number, y: number, scale: number) =>
    Math.trunc((Math.round(x * scale) * held.n + Math.round(y * scale) * next.n) / n) / scale;
  for (const k of METRICS) {
    const x = held.avg[k];
    const y = next.avg[k];
    if (x !== null && y !== null) merged.avg[k] = weighted(x, y, SCALE[k]);
  }
  return { ...merged, up: weighted(held.up, next.up, UP_SCALE) };
}
