import { CHARTED, type Charted, type HistoryData } from '../api/history.js';

/** The named ranges of the machine page, shortest first, and their length in seconds. */
export const RANGES = ['1h', '6h', '24h', '7d', '30d', '90d', '365d'] as const;
export const RANGE_S: Record<(typeof RANGES)[number], number> = {
  '1h': 3600,
  '6h': 6 * 3600,
  '24h': 86_400,
  '7d': 7 * 86_400,
  '30d': 30 * 86_400,
  '90d': 90 * 86_400,
  '365d': 365 * 86_400,
};

/** Less than this share of the window empty before the first sample is not worth a "since". */
const EMPTY_START = 0.05;

/**
 * The default range for what the answer holds: a machine first seen ten minutes ago has a few
 * points at the end of 24 h (too few to draw a line), so its page opens at the smallest range
 * that still shows everything it has. Null: keep the range asked for.
 */
export function rangeForData(data: HistoryData): string | null {
  const first = data.up.findIndex((u) => u !== null);
  if (first < 0) return null;
  const end = (data.t.at(-1) ?? 0) + data.stepS;
  const span = end - (data.t[first] ?? end);
  const fit = RANGES.find((r) => RANGE_S[r] >= span) ?? null;
  return fit !== null && RANGE_S[fit] < end - (data.t[0] ?? end) ? fit : null;
}

/**
 * The answer from its first sample on, when nothing was recorded in the window's first part (a
 * machine younger than the window): its charts then show the data there is, not a sliver at
 * the right edge. `since`: that first sample (ms since the epoch), or null when nothing was cut.
 */
export function fromFirstSample(data: HistoryData): { data: HistoryData; since: number | null } {
  const first = data.up.findIndex((u) => u !== null);
  const start = data.t[0];
  const at = data.t[first];
  if (first <= 0 || start === undefined || at === undefined) return { data, since: null };
  const end = (data.t.at(-1) ?? start) + data.stepS;
  if (at - start < EMPTY_START * (end - start)) return { data, since: null };
  const cut = <T>(column: T[]) => column.slice(first);
  const avg = {} as Record<Charted, (number | null)[]>;
  const max = {} as Record<Charted, (number | null)[]>;
  for (const k of CHARTED) {
    avg[k] = cut(data.avg[k]);
    max[k] = cut(data.max[k]);
  }
  return {
    data: { stepS: data.stepS, t: cut(data.t), up: cut(data.up), avg, max },
    since: at * 1000,
  };
}
