import { safeText } from '../../../../shared/wire/free-text.js';
import type { Gpu } from './types.js';

/** GPUs a card shows at most (the board keeps as many for history and /metrics). */
export const GPUS_SHOWN = 16;

function num(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

function nonNegative(value: unknown): number | null {
  const n = num(value);
  return n === null ? null : Math.max(0, n);
}

/** The well-formed GPUs of an overview's `gpus` (any shape: what is not a GPU is left out). */
export function gpus(value: unknown): Gpu[] {
  if (!Array.isArray(value)) return [];
  const out: Gpu[] = [];
  for (const g of value.slice(0, GPUS_SHOWN)) {
    if (typeof g !== 'object' || g === null || Array.isArray(g)) continue;
    const v = g as Record<string, unknown>;
    const index = num(v.index);
    if (index === null || !Number.isSafeInteger(index) || index < 0) continue;
    const util = num(v.util);
    out.push({
      index,
      name: typeof v.name === 'string' ? safeText(v.name).slice(0, 200) : '',
      util: util === null ? null : Math.min(1, Math.max(0, util)),
      memUsed: nonNegative(v.mem_used),
      memTotal: nonNegative(v.mem_total),
      tempC: num(v.temp_c),
      powerW: nonNegative(v.power_w),
    });
  }
  return out;
}

/** An overview's `gpus_error`, one clean line, or null. */
export function gpusError(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? safeText(value).slice(0, 200) : null;
}
