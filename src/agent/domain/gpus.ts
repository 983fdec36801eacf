import { safeText } from '../../shared/wire/free-text.js';
import { GPU_NAME_MAX, GPUS_MAX, type GpuView } from '../../shared/wire/overview.js';

/** The columns the agent asks nvidia-smi for, in the order it prints them. */
export const NVIDIA_FIELDS = [
  'index',
  'name',
  'utilization.gpu',
  'memory.used',
  'memory.total',
  'temperature.gpu',
  'power.draw',
] as const;

/** nvidia-smi's argv (after the program): one line per GPU, no header, no units. */
export const NVIDIA_ARGS: readonly string[] = [
  `--query-gpu=${NVIDIA_FIELDS.join(',')}`,
  '--format=csv,noheader,nounits',
];

/** rocm-smi's argv (after the program): the same figures as JSON, one object per card. */
export const ROCM_ARGS: readonly string[] = [
  '--showuse',
  '--showmeminfo',
  'vram',
  '--showtemp',
  '--showpower',
  '--showproductname',
  '--json',
];

const MIB = 1024 * 1024;

/** Thrown when a tool's output cannot be read as GPUs; its message is the reason shown. */
export class GpuParseError extends Error {}

/**
 * The GPUs in nvidia-smi's CSV. Takes the agent's form (noheader,nounits: `0, NVIDIA H100 80GB
 * HBM3, 100, 19818, 81559, 59, 631.95`) and the form with units and a header (`100 %`,
 * `19818 MiB`, `631.95 W`); `[N/A]`, `[Not Supported]` and the like are null.
 */
export function parseNvidiaCsv(stdout: string): GpuView[] {
  const out: GpuView[] = [];
  for (const raw of stdout.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('index,') || line.startsWith('index ,')) continue;
    const cells = line.split(',').map((c) => c.trim());
    // A name with a comma in it: the cells between index and the five numbers are the name.
    if (cells.length < NVIDIA_FIELDS.length)
      throw new GpuParseError(`nvidia-smi printed a line of ${cells.length} fields, not 7`);
    const numbers = cells.slice(-5);
    const index = Number(cells[0]);
    if (!Number.isSafeInteger(index) || index < 0)
      throw new GpuParseError('nvidia-smi printed a line without a GPU index');
    const [util, used, total, temp, power] = numbers.map((c) => quantity(c));
    out.push(
      gpu({
        index,
        name: cells.slice(1, -5).join(', '),
        util: util === undefined || util === null ? null : util / 100,
        mem_used: mib(used),
        mem_total: mib(total),
        temp_c: temp ?? null,
        power_w: power ?? null,
      }),
    );
    if (out.length === GPUS_MAX) break;
  }
  return out;
}

/** `45 %`, `1234 MiB`, `70.12 W`, `59` → the number; `[N/A]`, `N/A`, `[Not Supported]` → null. */
function quantity(cell: string): number | null {
  if (cell.startsWith('[') || /^n\/?a\b/i.test(cell) || cell === '') return null;
  const match = /^(-?\d+(?:\.\d+)?)\s*(%|MiB|W|C)?$/i.exec(cell);
  if (match === null) throw new GpuParseError(`nvidia-smi printed a value that is not a number`);
  return Number(match[1]);
}

function mib(value: number | null | undefined): number | null {
  return value === null || value === undefined ? null : Math.round(value * MIB);
}

/**
 * The GPUs in rocm-smi's JSON (`{"card0": {...}, "card1": {...}, "system": {...}}`). Key names
 * moved between ROCm releases (`Card series`, `Card Series`, `Device Name`; an edge sensor or
 * only a junction one; average or current socket power): each is looked up by its known names.
 * Text before the JSON (rocm-smi prints warnings there) is skipped.
 */
export function parseRocmJson(stdout: string): GpuView[] {
  const start = stdout.indexOf('{');
  if (start < 0) throw new GpuParseError('rocm-smi printed no JSON');
  let data: unknown;
  try {
    data = JSON.parse(stdout.slice(start));
  } catch {
    throw new GpuParseError('rocm-smi printed JSON that does not parse');
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data))
    throw new GpuParseError('rocm-smi printed JSON that is not an object');
  const out: GpuView[] = [];
  for (const [key, value] of Object.entries(data)) {
    const card = /^card:?(\d+)$/.exec(key);
    if (card === null || value === null || typeof value !== 'object') continue;
    const fields = value as Record<string, unknown>;
    const text = (...names: string[]) => {
      for (const name of names) {
        const v = fields[name];
        if (typeof v === 'string' && v.trim() !== '' && !/^n\/a/i.test(v.trim())) return v.trim();
      }
      return null;
    };
    const number = (...names: string[]) => {
      const v = text(...names);
      if (v === null) return null;
      const n = Number(v);
      return Number.isFinite(n) ? n : null;
    };
    const util = number('GPU use (%)');
    const used = number('VRAM Total Used Memory (B)');
    const total = number('VRAM Total Memory (B)');
    out.push(
      gpu({
        index: Number(card[1]),
        name: text('Card Series', 'Card series', 'Device Name', 'Card SKU', 'Card Model') ?? key,
        util: util === null ? null : util / 100,
        mem_used: used === null ? null : Math.round(used),
        mem_total: total === null ? null : Math.round(total),
        temp_c: number(
          'Temperature (Sensor edge) (C)',
          'Temperature (Sensor junction) (C)',
          'Temperature (Sensor memory) (C)',
        ),
        power_w: number(
          'Average Graphics Package Power (W)',
          'Current Socket Graphics Package Power (W)',
        ),
      }),
    );
  }
  out.sort((a, b) => a.index - b.index);
  return out.slice(0, GPUS_MAX);
}

/** A GPU within the wire schema's bounds: shares 0–1, no negative bytes, a short clean name. */
function gpu(g: GpuView): GpuView {
  const nonNegative = (x: number | null) =>
    x === null || !Number.isFinite(x) ? null : Math.max(0, x);
  const finite = (x: number | null) => (x === null || !Number.isFinite(x) ? null : x);
  return {
    index: g.index,
    name: safeText(g.name).slice(0, GPU_NAME_MAX),
    util: g.util === null || !Number.isFinite(g.util) ? null : Math.min(1, Math.max(0, g.util)),
    mem_used: nonNegative(g.mem_used),
    mem_total: nonNegative(g.mem_total),
    temp_c: finite(g.temp_c),
    power_w: nonNegative(g.power_w),
  };
}
