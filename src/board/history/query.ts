import {
  METRICS,
  type MetricName,
  type Sample,
  TIER_STEP_S,
  TIERS,
  type TierName,
} from './history-store.js';
import type { HistorySettings } from './settings.js';

/** The named windows of GET /api/machines/{name}/history, in seconds. */
export const RANGES = {
  '1h': 3600,
  '6h': 6 * 3600,
  '24h': 86_400,
  '7d': 7 * 86_400,
  '30d': 30 * 86_400,
  '90d': 90 * 86_400,
  '365d': 365 * 86_400,
} as const;
export type RangeName = keyof typeof RANGES;

/** A window of time to chart, in epoch seconds (from < to). */
export interface Window {
  fromS: number;
  toS: number;
}

/** The tier a window is read from, and the step of the points answered. */
export interface Plan {
  tier: TierName;
  stepS: number;
  count: number;
}

/**
 * Picks the coarsest tier whose step still gives `points` points over the window and whose
 * retention reaches back to its start; if none reaches back, the finest that does (fewer
 * points, never an empty chart of data that was pruned); if none at all, the coarsest.
 */
export function plan(
  window: Window,
  points: number,
  retention: HistorySettings,
  nowS: number,
): Plan {
  const span = window.toS - window.fromS;
  const wanted = Math.max(1, Math.ceil(span / points));
  // A named range as long as a tier's retention (24 h and raw) is read from that tier although
  // its window, rounded down to the second and made a moment before `nowS`, starts a little
  // further back: without the slack it fell to the 5-minute tier, empty for a new board's first
  // five minutes.
  const reaches = (t: TierName) => window.fromS >= nowS - retention[t] / 1000 - REACH_SLACK_S;
  let tier: TierName | null = null;
  for (const t of TIERS) if (TIER_STEP_S[t] <= wanted && reaches(t)) tier = t;
  if (tier === null) tier = TIERS.find((t) => reaches(t)) ?? 'h1';
  const stepS = Math.max(wanted, TIER_STEP_S[tier]);
  return { tier, stepS, count: Math.ceil(span / stepS) };
}

/** How far before a tier's retention a window may start and still be read from it. */
const REACH_SLACK_S = 60;

/** The column arrays of a history answer (uPlot's layout): equal lengths, null where nothing. */
export interface Series {
  t: number[];
  up: (number | null)[];
  avg: Record<MetricName, (number | null)[]>;
  max: Record<MetricName, (number | null)[]>;
}

/**
 * Spreads a tier's rows over the window's points: each point covers [t, t + step) and holds
 * the average (weighted by samples) and the max of the rows inside; null if none.
 */
export function toSeries(rows: readonly Sample[], window: Window, p: Plan): Series {
  const t: number[] = [];
  const up: (number | null)[] = [];
  const n: number[] = [];
  const avg = columns(p.count);
  const max = columns(p.count);
  const counts = Object.fromEntries(
    METRICS.map((k) => [k, new Array<number>(p.count).fill(0)]),
  ) as Record<MetricName, number[]>;
  for (let i = 0; i < p.count; i += 1) {
    t.push(window.fromS + i * p.stepS);
    up.push(null);
    n.push(0);
  }
  for (const row of rows) {
    const i = Math.floor((row.t - window.fromS) / p.stepS);
    if (i < 0 || i >= p.count) continue;
    up[i] = ((up[i] ?? 0) * (n[i] ?? 0) + row.up * row.n) / ((n[i] ?? 0) + row.n);
    n[i] = (n[i] ?? 0) + row.n;
    for (const k of METRICS) {
      const v = row.avg[k];
      if (v === null) continue;
      const c = counts[k][i] ?? 0;
      avg[k][i] = ((avg[k][i] ?? 0) * c + v * row.n) / (c + row.n);
      counts[k][i] = c + row.n;
      const m = row.max[k] ?? v;
      const held = max[k][i] ?? null;
      if (held === null || m > held) max[k][i] = m;
    }
  }
  return { t, up, avg, max };
}

function columns(count: number): Record<MetricName, (number | null)[]> {
  return Object.fromEntries(
    METRICS.map((k) => [k, new Array<number | null>(count).fill(null)]),
  ) as Record<MetricName, (number | null)[]>;
}

/** Reads a `from`/`to` value: ISO 8601 or epoch seconds; null if it is neither. */
export function parseInstant(text: string): number | null {
  if (/^[0-9]{1,12}(\.[0-9]+)?$/.test(text)) return Number(text);
  if (!/^[0-9]{4}-[0-9]{2}-[0-9]{2}/.test(text)) return null;
  const ms = Date.parse(text);
  return Number.isFinite(ms) ? ms / 1000 : null;
}
