import { BACKGROUND_SLICE_MS, inSlices } from '../../../shared/slices.js';
import {
  emptyMetricRecord,
  METRICS,
  type Sample,
  TIERS,
  type WriteBatch,
} from '../../history/history-store.js';
import type { WriterBatch } from './history-writer.js';

/** Numbers per sample on the wire: t, n, up, then each metric's avg, then each one's max. */
const PER_SAMPLE = 3 + 2 * METRICS.length;
const RAW = TIERS.indexOf('raw');

/**
 * A write batch as it crosses to the writer thread: its samples as columns (names, a tier code
 * each and one Float64Array of numbers, NaN for null) rather than 15,000 small objects, so that
 * posting a sweep costs the board's thread a copy of strings and a transferred buffer.
 */
export interface WireBatch {
  /**
   * The samples' names as one JSON array text: posting one string copies it in one piece, where
   * posting 15,000 strings cloned each in turn (5–9 ms of the board's thread a sweep, at once).
   */
  names: string;
  tiers: Uint8Array;
  numbers: Float64Array;
  events: WriteBatch['events'];
  forget: string[];
  cutoffs: WriteBatch['cutoffs'];
}

/**
 * The batch as columns, copied in 1-ms slices (a sweep of 15,000 took 20–40 ms whole), its
 * names written into the JSON text as they are copied.
 */
export async function toWire(batch: WriteBatch): Promise<WireBatch> {
  const sweeps = batch.sweeps ?? [];
  let count = batch.samples.length;
  for (const sweep of sweeps) count += sweep.names.length;
  let names = '';
  const tiers = new Uint8Array(count);
  const numbers = new Float64Array(count * PER_SAMPLE);
  const named = (i: number, name: string): void => {
    names += i === 0 ? JSON.stringify(name) : `,${JSON.stringify(name)}`;
  };
  await inSlices(
    batch.samples,
    ({ tier, name, sample }, i) => {
      let at = i * PER_SAMPLE;
      named(i, name);
      tiers[i] = TIERS.indexOf(tier);
      numbers[at++] = sample.t;
      numbers[at++] = sample.n;
      numbers[at++] = sample.up;
      for (const k of METRICS) numbers[at++] = sample.avg[k] ?? Number.NaN;
      for (const k of METRICS) numbers[at++] = sample.max[k] ?? Number.NaN;
    },
    BACKGROUND_SLICE_MS,
  );
  // A sweep is columns already: copied row by row, no object made.
  let first = batch.samples.length;
  const m = METRICS.length;
  for (const sweep of sweeps) {
    const from = first;
    await inSlices(
      sweep.names,
      (name, row) => {
        const i = from + row;
        let at = i * PER_SAMPLE;
        named(i, name);
        tiers[i] = RAW;
        numbers[at++] = sweep.t;
        numbers[at++] = 1;
        numbers[at++] = sweep.up[row] as number;
        for (let k = 0; k < m; k += 1) {
          const value = sweep.values[row * m + k] as number;
          numbers[at + k] = value;
          numbers[at + m + k] = value;
        }
      },
      BACKGROUND_SLICE_MS,
    );
    first += sweep.names.length;
  }
  return {
    names: `[${names}]`,
    tiers,
    numbers,
    events: batch.events,
    forget: batch.forget,
    cutoffs: batch.cutoffs,
  };
}

/**
 * The batch's rows as the writer takes them (history-writer.ts), made from the columns one at
 * a time into the same object: each is valid until the next is asked for. The writer thread
 * then holds a sweep as its columns only, not as 15,000 objects that outlive a collection or
 * two while the batch is written (they filled its old generation).
 */
export function wireBatch(wire: WireBatch): WriterBatch {
  return { rows: wireRows(wire), events: wire.events, forget: wire.forget, cutoffs: wire.cutoffs };
}

function* wireRows(wire: WireBatch): Generator<WriteBatch['samples'][number]> {
  const names = JSON.parse(wire.names) as string[];
  const sample: Sample = { t: 0, n: 0, up: 0, avg: emptyMetricRecord(), max: emptyMetricRecord() };
  const row: WriteBatch['samples'][number] = { tier: 'raw', name: '', sample };
  const { numbers } = wire;
  let at = 0;
  const next = (): number | null => {
    const value = numbers[at++] as number;
    return Number.isNaN(value) ? null : value;
  };
  for (let i = 0; i < names.length; i += 1) {
    sample.t = next() ?? 0;
    sample.n = next() ?? 0;
    sample.up = next() ?? 0;
    for (const k of METRICS) sample.avg[k] = next();
    for (const k of METRICS) sample.max[k] = next();
    row.tier = TIERS[wire.tiers[i] as number] ?? 'raw';
    row.name = names[i] as string;
    yield row;
  }
}
