import type { Static } from '../../shared/typebox.js';
import { safeText } from '../../shared/wire/free-text.js';
import { TEMPS_MAX, type TempView } from '../../shared/wire/machine-now.js';

export type TempEntry = Static<typeof TempView>;

const LABEL_MAX = 128;

/** One hwmon chip as its directory shows it: `name`, and each `tempK_input` with its label. */
export interface HwmonChip {
  /** The directory, e.g. `hwmon3`. */
  dir: string;
  /** The `name` file (`coretemp`, `nvme`, `acpitz`), null without one. */
  name: string | null;
  sensors: readonly { index: number; label: string | null; input: string }[];
}

/** A `tempK_input` value (millidegrees Celsius, `45000\n`) in degrees; null when not a number. */
export function celsius(input: string): number | null {
  const text = input.trim();
  if (!/^-?\d+$/.test(text)) return null;
  return Number(text) / 1000;
}

/** The `hwmonN` directories in their number order (hwmon2 before hwmon10). */
export function chipOrder(a: string, b: string): number {
  const number = (dir: string) => Number(/(\d+)$/.exec(dir)?.[1] ?? Number.MAX_SAFE_INTEGER);
  return number(a) - number(b) || a.localeCompare(b);
}

/**
 * The temperatures of the chips, labelled `"<chip name> <label or tempK>"` (`coretemp Package
 * id 0`, `acpitz temp1`), in chip and sensor order, at most TEMPS_MAX. Two sensors with one label
 * (two NVMe drives' `nvme Composite`) each get their directory after it. A sensor whose value is
 * not a number is left out.
 */
export function temperatures(chips: readonly HwmonChip[]): TempEntry[] {
  const read: { label: string; dir: string; c: number }[] = [];
  for (const chip of [...chips].sort((a, b) => chipOrder(a.dir, b.dir))) {
    const name = oneLine(chip.name) ?? chip.dir;
    for (const sensor of [...chip.sensors].sort((a, b) => a.index - b.index)) {
      const c = celsius(sensor.input);
      if (c === null) continue;
      read.push({
        label: `${name} ${oneLine(sensor.label) ?? `temp${sensor.index}`}`,
        dir: chip.dir,
        c,
      });
    }
  }
  const count = new Map<string, number>();
  for (const t of read) count.set(t.label, (count.get(t.label) ?? 0) + 1);
  return read.slice(0, TEMPS_MAX).map((t) => {
    const label = (count.get(t.label) ?? 0) > 1 ? `${t.label} (${t.dir})` : t.label;
    return { label: safeText(label).slice(0, LABEL_MAX), c: t.c };
  });
}

function oneLine(text: string | null): string | null {
  if (text === null) return null;
  const line = text.trim();
  return line === '' ? null : line;
}
