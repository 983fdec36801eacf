import type { Api } from './client.js';

/** The metrics a history answer carries, in the order the page charts them. */
export const CHARTED = [
  'cpu',
  'mem',
  'load',
  'disk',
  'latency_ms',
  'gpu_util',
  'gpu_mem',
  'net_rx',
  'net_tx',
  'temp_max',
] as const;
export type Charted = (typeof CHARTED)[number];

/** GET /api/machines/{name}/history, checked. */
export interface HistoryData {
  stepS: number;
  t: number[];
  up: (number | null)[];
  avg: Record<Charted, (number | null)[]>;
  max: Record<Charted, (number | null)[]>;
}

export interface HistoryEvent {
  at: number;
  state: 'up' | 'down';
  previous: 'up' | 'down' | null;
  reason: string | null;
  durationS: number | null;
}

export type Uptime = { '24h': number | null; '7d': number | null; '30d': number | null };

const seg = encodeURIComponent;

function rec(v: unknown): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error('not an object');
  return v as Record<string, unknown>;
}

function column(v: unknown, length: number): (number | null)[] {
  if (!Array.isArray(v) || v.length !== length) throw new Error('a column of the wrong length');
  return v.map((x) => (typeof x === 'number' && Number.isFinite(x) ? x : null));
}

function share(v: unknown): number | null {
  return typeof v === 'number' && v >= 0 && v <= 1 ? v : null;
}

/** A window: a named range up to now, or from/to in epoch seconds (a zoom). */
export type HistoryWindow = { range: string } | { from: number; to: number };

/** Reads a machine's history for a window. */
export async function fetchHistory(
  api: Api,
  name: string,
  w: HistoryWindow,
  points: number,
): Promise<HistoryData> {
  const q =
    'range' in w ? `range=${seg(w.range)}` : `from=${Math.floor(w.from)}&to=${Math.ceil(w.to)}`;
  const body = rec(await api.getJson(`/api/machines/${seg(name)}/history?${q}&points=${points}`));
  const series = rec(body.series);
  const max = rec(body.max);
  const t = column(series.t, Array.isArray(series.t) ? series.t.length : 0).map((x) => x ?? 0);
  const n = t.length;
  const avg = {} as Record<Charted, (number | null)[]>;
  const top = {} as Record<Charted, (number | null)[]>;
  for (const k of CHARTED) {
    // A board older than a column (GPU, network, temperature) sends none: nothing recorded.
    avg[k] = series[k] === undefined ? new Array<null>(n).fill(null) : column(series[k], n);
    top[k] = max[k] === undefined ? new Array<null>(n).fill(null) : column(max[k], n);
  }
  return {
    stepS: typeof body.step_s === 'number' ? body.step_s : 0,
    t,
    up: column(series.up, n),
    avg,
    max: top,
  };
}

/** Reads a machine's latest state changes. */
export async function fetchEvents(api: Api, name: string, limit: number): Promise<HistoryEvent[]> {
  const body = rec(await api.getJson(`/api/machines/${seg(name)}/events?limit=${limit}`));
  if (!Array.isArray(body.events)) return [];
  const out: HistoryEvent[] = [];
  for (const e of body.events) {
    const x = rec(e);
    const at = typeof x.at === 'string' ? Date.parse(x.at) : Number.NaN;
    if (Number.isNaN(at) || (x.state !== 'up' && x.state !== 'down')) continue;
    out.push({
      at,
      state: x.state,
      previous: x.previous === 'up' || x.previous === 'down' ? x.previous : null,
      reason: typeof x.reason === 'string' ? x.reason : null,
      durationS: typeof x.duration_s === 'number' ? x.duration_s : null,
    });
  }
  return out;
}

/** Reads every machine's uptime. */
export async function fetchUptime(api: Api): Promise<Map<string, Uptime>> {
  const body = rec(await api.getJson('/api/uptime'));
  const out = new Map<string, Uptime>();
  if (!Array.isArray(body.machines)) return out;
  for (const m of body.machines) {
    const x = rec(m);
    if (typeof x.name === 'string')
      out.set(x.name, { '24h': share(x['24h']), '7d': share(x['7d']), '30d': share(x['30d']) });
  }
  return out;
}
