import { type Static, Type } from '../../shared/typebox.js';
import type { TierName } from './history-store.js';

const Duration = Type.Union(
  [
    Type.String({ pattern: '^[0-9]{1,6}(s|m|h|d)$', description: 'e.g. 90m, 24h, 30d' }),
    Type.Number({ exclusiveMinimum: 0, description: 'seconds' }),
  ],
  { description: 'how long a tier keeps its rows: a number of seconds, or 90m, 24h, 30d' },
);

/** `history:` in board.yaml: false turns history off; an object sets each tier's retention. */
export const HistoryConfig = Type.Union([
  Type.Boolean(),
  Type.Object(
    { raw: Type.Optional(Duration), '5m': Type.Optional(Duration), '1h': Type.Optional(Duration) },
    { additionalProperties: false },
  ),
]);
export type HistoryConfig = Static<typeof HistoryConfig>;

/** How long each tier keeps its rows (ms); null settings: history is off. */
export type HistorySettings = Record<TierName, number>;

const DAY_MS = 86_400_000;
/** The defaults: raw sweeps a day, 5-minute aggregates 30 days, hourly ones 400 days. */
export const HISTORY_DEFAULTS: HistorySettings = { raw: DAY_MS, m5: 30 * DAY_MS, h1: 400 * DAY_MS };

const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: DAY_MS } as const;

/** A schema-valid duration in ms. */
export function durationMs(value: string | number): number {
  if (typeof value === 'number') return value * 1000;
  const unit = value.slice(-1) as keyof typeof UNIT_MS;
  return Number.parseInt(value.slice(0, -1), 10) * UNIT_MS[unit];
}

/** The settings of a schema-valid `history:` value (absent: the defaults). */
export function historySettings(raw: HistoryConfig | undefined): HistorySettings | null {
  if (raw === false) return null;
  if (raw === undefined || raw === true) return { ...HISTORY_DEFAULTS };
  return {
    raw: raw.raw === undefined ? HISTORY_DEFAULTS.raw : durationMs(raw.raw),
    m5: raw['5m'] === undefined ? HISTORY_DEFAULTS.m5 : durationMs(raw['5m']),
    h1: raw['1h'] === undefined ? HISTORY_DEFAULTS.h1 : durationMs(raw['1h']),
  };
}
