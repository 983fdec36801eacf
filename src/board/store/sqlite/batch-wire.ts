import { inSlices } from '../../../shared/slices.js';
import {
  emptyMetricRecord,
  METRICS,
  type Sample,
  TIERS,
  type WriteBatch,
} from '../history-store.js';

/** Numbers per sample on the wire: t, n, up, then each metric's avg, then each one's max. */
const PER_SAMPLE = 3 + 2 * METRICS.length;

/**
 * A write batch as it crosses to the writer thread: its samples as columns (names, a tier code
 * each and one Float64Array of numbers, NaN for null) rather than 15,000 small objects, so that
 * posting a sweep costs the board's thread a copy of strings and a transferred buffer.
 */
export interface WireBatch {
  names: string[];
  tiers: Uint8Array;
  numbers: Float64Array;
  events: WriteBatch['events'];
  forget: string[];
  cutoffs: WriteBatch['cutoffs'];
}

/** The batch as columns, copied in slices of a few ms (a sweep of 15,000 took 20–40 ms whole). */
export async function toWire(batch: WriteBatch): Promise<WireBatch> {
  const count = batch.samples.length;
  const names = new Array<string>(count);
  const tiers = new Uint8Array(count);
  const numbers = new Float64Array(count * PER_SAMPLE);
  await inSlices(batch.samples, ({ tier, name, sample }, i) => {
    let at = i * PER_SAMPLE;
    names[i] = name;
    tiers[i] = TIERS.indexOf(tier);
    numbers[at++] = sample.t;
    numbers[at++] = sample.n;
    numbers[at++] = sample.up;
    for (const k of METRICS) numbers[at++] = sample.avg[k] ?? Number.NaN;
    for (const k of METRICS) numbers[at++] = sample.max[k] ?? Number.NaN;
  });
  return {
    names,
    tiers,
    numbers,
    events: batch.events,
    forget: batch.forget,
    cutoffs: batch.cutoffs,
  };
}

export function fromWire(wire: WireBatch): WriteBatch {
  const samples: WriteBatch['samples'] = [];
  let at = 0;
  const next = (): number | null => {
    const value = wire.numbers[at++] as number;
    return Number.isNaN(value) ? null : value;
  };
  for (let i = 0; i < wire.names.length; i += 1) {
    const sample: Sample = {
      t: next() ?? 0,
      n: next() ?? 0,
      up: next() ?? 0,
      avg: emptyMetricRecord(),
      max: emptyMetricRecord(),
    };
    for (const k of METRICS) sample.avg[k] = next();
    for (const k of METRICS) sample.max[k] = next();
    samples.push({
      tier: TIERS[wire.tiers[i] as number] ?? 'raw',
      name: wire.names[i] as string,
      sample,
    });
  }
  return { samples, events: wire.events, forget: wire.forget, cutoffs: wire.cutoffs };
}
