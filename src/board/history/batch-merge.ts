import { METRICS, type RawSweep, type WriteBatch } from './history-store.js';

/** What a merge dropped to stay within its bound of raw rows. */
export interface Shed {
  count: number;
}

/**
 * One batch for two: the later forgets cancel the earlier's rows of those names. Past `rawMax`
 * raw rows the oldest raw rows go first (aggregates are kept: they fold what the raw rows said,
 * so the coarser tiers still cover the gap); `shed.count` grows by the rows dropped.
 */
export function mergeBatches(a: WriteBatch, b: WriteBatch, rawMax: number, shed: Shed): WriteBatch {
  const gone = new Set(b.forget);
  let samples = a.samples.filter((s) => !gone.has(s.name)).concat(b.samples);
  let sweeps = [...(a.sweeps ?? []).map((s) => without(s, gone)), ...(b.sweeps ?? [])];
  let raw = samples.reduce((n, s) => n + (s.tier === 'raw' ? 1 : 0), 0);
  for (const s of sweeps) raw += s.names.length;
  if (raw > rawMax) {
    let over = raw - rawMax;
    shed.count += over;
    // The sweeps' rows are the oldest when raw rows are in both (the recorder writes raw rows
    // as sweeps only; `samples` carries them in tests and older callers).
    const keptSweeps: RawSweep[] = [];
    for (const s of sweeps) {
      if (over >= s.names.length) over -= s.names.length;
      else {
        keptSweeps.push(over === 0 ? s : rowsFrom(s, over));
        over = 0;
      }
    }
    sweeps = keptSweeps;
    if (over > 0) {
      const kept: WriteBatch['samples'] = [];
      for (const s of samples) {
        if (s.tier === 'raw' && over > 0) over -= 1;
        else kept.push(s);
      }
      samples = kept;
    }
  }
  return {
    samples,
    sweeps,
    events: a.events.filter((e) => !gone.has(e.name)).concat(b.events),
    forget: [...a.forget, ...b.forget],
    cutoffs: b.cutoffs,
  };
}

/** The sweep without the rows of the names in `gone`. */
function without(sweep: RawSweep, gone: ReadonlySet<string>): RawSweep {
  if (gone.size === 0 || !sweep.names.some((n) => gone.has(n))) return sweep;
  const m = METRICS.length;
  const names: string[] = [];
  const up: number[] = [];
  const values: number[] = [];
  sweep.names.forEach((name, i) => {
    if (gone.has(name)) return;
    names.push(name);
    up.push(sweep.up[i] as number);
    for (let k = 0; k < m; k += 1) values.push(sweep.values[i * m + k] as number);
  });
  return { t: sweep.t, names, up: Uint8Array.from(up), values: Float64Array.from(values) };
}

/** The sweep from its row `first` on. */
function rowsFrom(sweep: RawSweep, first: number): RawSweep {
  const m = METRICS.length;
  return {
    t: sweep.t,
    names: sweep.names.slice(first),
    up: sweep.up.slice(first),
    values: sweep.values.slice(first * m),
  };
}
