import { type Api, ApiError } from './client.js';

export type CheckState = 'up' | 'down' | 'unknown';

/** One runner's last result: a machine's name, or `@board` / `@push`. */
export interface CheckRunner {
  machine: string;
  ok: boolean;
  ms: number;
  /** Machine text: shown as text, never as HTML. */
  detail: string;
  at: number;
}

/** One row of GET /api/checks. */
export interface CheckRow {
  name: string;
  type: string;
  state: CheckState;
  /** When the state last changed (epoch ms); null while unknown. */
  since: number | null;
  uptime24h: number | null;
  runners: CheckRunner[];
}

/** One runner's series of GET /api/checks/{name}/history. */
export interface CheckSeries {
  runner: string;
  t: number[];
  ok: (number | null)[];
  ms: (number | null)[];
}

export interface CheckHistory {
  series: CheckSeries[];
  uptime: number | null;
}

/** The ranges the check history answers. */
export const CHECK_RANGES = ['1h', '24h', '7d', '30d'] as const;
export type CheckRange = (typeof CHECK_RANGES)[number];

const seg = encodeURIComponent;

function rec(v: unknown): Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
    ? (v as Record<string, unknown>)
    : {};
}

function time(v: unknown): number | null {
  if (typeof v !== 'string') return null;
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : at;
}

function share(v: unknown): number | null {
  return typeof v === 'number' && v >= 0 && v <= 1 ? v : null;
}

function runnerOf(v: unknown): CheckRunner | null {
  const r = rec(v);
  if (typeof r.machine !== 'string' || typeof r.ok !== 'boolean') return null;
  return {
    machine: r.machine,
    ok: r.ok,
    ms: typeof r.ms === 'number' && Number.isFinite(r.ms) ? r.ms : 0,
    detail: typeof r.detail === 'string' ? r.detail : '',
    at: time(r.at) ?? 0,
  };
}

/** Reads GET /api/checks: rows it cannot read are left out. */
export function parseChecks(body: unknown): CheckRow[] {
  if (!Array.isArray(body)) return [];
  const out: CheckRow[] = [];
  for (const v of body) {
    const c = rec(v);
    if (typeof c.name !== 'string') continue;
    const state = c.state === 'up' || c.state === 'down' ? c.state : 'unknown';
    const runners = Array.isArray(c.runners) ? c.runners.map(runnerOf) : [];
    out.push({
      name: c.name,
      type: typeof c.type === 'string' ? c.type : '',
      state,
      since: time(c.since),
      uptime24h: share(c.uptime_24h),
      runners: runners.filter((r): r is CheckRunner => r !== null),
    });
  }
  return out;
}

export async function fetchChecks(api: Api): Promise<CheckRow[]> {
  return parseChecks(await api.getJson('/api/checks'));
}

/** Reads GET /api/checks/{name}/history; null when the board has no history for it (404, 503). */
export async function fetchCheckHistory(
  api: Api,
  name: string,
  range: CheckRange,
): Promise<CheckHistory | null> {
  let body: Record<string, unknown>;
  try {
    body = rec(await api.getJson(`/api/checks/${seg(name)}/history?range=${seg(range)}`));
  } catch (error) {
    if (error instanceof ApiError && (error.status === 404 || error.status === 503)) return null;
    throw error;
  }
  const series: CheckSeries[] = [];
  for (const v of Array.isArray(body.runners) ? body.runners : []) {
    const r = rec(v);
    if (typeof r.runner !== 'string' || !Array.isArray(r.points)) continue;
    const s: CheckSeries = { runner: r.runner, t: [], ok: [], ms: [] };
    for (const p of r.points) {
      const x = rec(p);
      if (typeof x.t !== 'number' || !Number.isFinite(x.t)) continue;
      s.t.push(x.t);
      s.ok.push(share(x.ok));
      s.ms.push(typeof x.ms === 'number' && Number.isFinite(x.ms) ? x.ms : null);
    }
    series.push(s);
  }
  return { series, uptime: share(body.uptime) };
}

/** Down first, then unknown, then up; by name within each. */
export function checkOrder(a: CheckRow, b: CheckRow): number {
  const rank = { down: 0, unknown: 1, up: 2 } as const;
  return rank[a.state] - rank[b.state] || a.name.localeCompare(b.name);
}

/** The mean of the runners' last response times (null without runners). */
export function meanMs(runners: readonly CheckRunner[]): number | null {
  if (runners.length === 0) return null;
  return runners.reduce((sum, r) => sum + r.ms, 0) / runners.length;
}
