/** Reading numbers and objects out of an overview of unknown shape (every field is checked). */

/** `value` as an object, or null (an array or anything else is not one). */
export function record(value: unknown): Record<string, unknown> | null {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}

/** `value` as a finite number, or null. */
export function num(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/** A share, kept within 0–1. */
export function unit(value: number | null): number | null {
  return value === null ? null : Math.min(1, Math.max(0, value));
}

/** A count or a rate, never below 0. */
export function nonNegative(value: number | null): number | null {
  return value === null ? null : Math.max(0, value);
}

/** part / whole, kept within 0–1. */
export function ratio(part: number, whole: number): number {
  return Math.min(1, Math.max(0, part / whole));
}
