/** The values of the condition language: Go durations, numbers as Gatus reads them, globs. */

/** Go's time.ParseDuration units (as Gatus reads `336h`, `1h30m`, `500ms`). */
const DURATION = /^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/;
const UNIT_MS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/** A Go duration in milliseconds, or null when the text is not one. */
export function durationMs(text: string): number | null {
  const negative = text.startsWith('-');
  const body = negative || text.startsWith('+') ? text.slice(1) : text;
  if (!DURATION.test(body)) return null;
  let total = 0;
  for (const m of body.matchAll(/(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/g))
    total += Number(m[1]) * (UNIT_MS[m[2] ?? ''] ?? 0);
  return negative ? -total : total;
}

const NUMBER = /^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/;
/** The number a text spells (decimal, as Gatus's ParseInt/ParseFloat read it), or null. */
export function numberOf(text: string): number | null {
  if (NUMBER.test(text)) return Number(text);
  if (/^0x[0-9a-f]+$/i.test(text)) return Number.parseInt(text.slice(2), 16);
  return null;
}

/** `*` matches any run of characters, `?` one; the rest is literal (Gatus's filepath.Match use). */
export function globMatch(pattern: string, s: string): boolean {
  if (pattern === '*') return true;
  const escaped = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  const source = escaped.replace(/\*/g, '[^]*').replace(/\?/g, '[^]');
  return new RegExp(`^${source}$`).test(s);
}

/** Milliseconds as Go prints a duration, trailing zero units dropped: 336h, 1h30m, 47h59m59s. */
export function formatDuration(ms: number): string {
  const sign = ms < 0 ? '-' : '';
  let s = Math.trunc(Math.abs(ms) / 1000);
  if (s === 0) return '0s';
  const h = Math.trunc(s / 3600);
  s -= h * 3600;
  const m = Math.trunc(s / 60);
  s -= m * 60;
  let out = h > 0 ? `${h}h${m}m${s}s` : m > 0 ? `${m}m${s}s` : `${s}s`;
  if (out.endsWith('m0s')) out = out.slice(0, -2);
  if (h > 0 && out.endsWith('h0m')) out = out.slice(0, -2);
  return `${sign}${out}`;
}
