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
  // Go's ParseInt with base 0, as Gatus reads numbers: 0x1F, 0o17, 0b101.
  if (/^0x[0-9a-f]+$/i.test(text)) return Number.parseInt(text.slice(2), 16);
  if (/^0o[0-7]+$/i.test(text)) return Number.parseInt(text.slice(2), 8);
  if (/^0b[01]+$/i.test(text)) return Number.parseInt(text.slice(2), 2);
  return null;
}

/**
 * `*` matches any run of characters, `?` one; the rest is literal (Gatus's filepath.Match use).
 * Two pointers, not a RegExp: the text is a body from the target, and `*a*b*` must not backtrack.
 */
export function globMatch(pattern: string, s: string): boolean {
  let p = 0;
  let i = 0;
  let star = -1;
  let resume = 0;
  while (i < s.length) {
    if (p < pattern.length && (pattern[p] === '?' || pattern[p] === s[i])) {
      p++;
      i++;
    } else if (p < pattern.length && pattern[p] === '*') {
      star = p++;
      resume = i;
    } else if (star >= 0) {
      p = star + 1;
      i = ++resume;
    } else return false;
  }
  while (pattern[p] === '*') p++;
  return p === pattern.length;
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
