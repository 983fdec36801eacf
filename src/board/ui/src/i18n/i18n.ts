import en from '../../../lang/en.json';
import type { LanguageInfo } from '../api/types.js';

/** A key of the English catalogue, which defines the key set of every catalogue. */
export type MessageKey = keyof typeof en.messages;
export type Params = Record<string, string | number>;

/** English, bundled: the fallback for any key a catalogue lacks, and the sign-in page's text. */
export const ENGLISH: Readonly<Record<string, string>> = en.messages;

/** The strings and formats of one interface language. */
export interface I18n {
  code: string;
  /** The message for `key` with `{placeholders}` filled in; English when the catalogue lacks it. */
  t(key: MessageKey, params?: Params): string;
  number(n: number, digits?: number): string;
  /** A share 0–1 as a whole percentage. */
  percent(share: number): string;
  bytes(n: number): string;
  /** Bytes a second in the largest unit under 1,000 of it (B/s, kB/s, MB/s, GB/s). */
  rate(bytesPerSecond: number): string;
  /** Degrees Celsius. */
  celsius(c: number): string;
  /** A share 0–1 as a percentage with one decimal (a container's or process's CPU). */
  fineShare(share: number): string;
  /** A time of day, or date and time when not today. */
  time(ms: number): string;
}

const PLACEHOLDER = /\{(\w+)\}/g;

function safeLocale(code: string): string {
  try {
    return Intl.getCanonicalLocales(code)[0] ?? 'en';
  } catch {
    return 'en';
  }
}

/** Builds the I18n of one catalogue (its `messages`, which may lack keys). */
export function createI18n(code: string, messages: Readonly<Record<string, string>>): I18n {
  const locale = safeLocale(code);
  const numbers = new Map<number, Intl.NumberFormat>();
  const numberFormat = (digits: number): Intl.NumberFormat => {
    let f = numbers.get(digits);
    if (f === undefined) {
      f = new Intl.NumberFormat(locale, { maximumFractionDigits: digits });
      numbers.set(digits, f);
    }
    return f;
  };
  const percent = new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 0 });
  const gb = new Intl.NumberFormat(locale, {
    style: 'unit',
    unit: 'gigabyte',
    maximumFractionDigits: 1,
  });
  const mb = new Intl.NumberFormat(locale, {
    style: 'unit',
    unit: 'megabyte',
    maximumFractionDigits: 0,
  });
  const fine = new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 1 });
  const rates = (['byte', 'kilobyte', 'megabyte', 'gigabyte'] as const).map(
    (unit) =>
      new Intl.NumberFormat(locale, {
        style: 'unit',
        unit: `${unit}-per-second`,
        maximumFractionDigits: unit === 'byte' ? 0 : 1,
      }),
  );
  const degrees = new Intl.NumberFormat(locale, {
    style: 'unit',
    unit: 'celsius',
    maximumFractionDigits: 0,
  });
  const clock = new Intl.DateTimeFormat(locale, { timeStyle: 'medium' });
  const dateClock = new Intl.DateTimeFormat(locale, { dateStyle: 'short', timeStyle: 'medium' });
  const t = (key: MessageKey, params?: Params): string => {
    const text = messages[key] ?? ENGLISH[key] ?? key;
    if (params === undefined) return text;
    return text.replace(PLACEHOLDER, (whole, name: string) => {
      const v = params[name];
      if (v === undefined) return whole;
      return typeof v === 'number' ? numberFormat(0).format(v) : v;
    });
  };
  return {
    code,
    t,
    number: (n, digits = 0) => numberFormat(digits).format(n),
    percent: (share) => percent.format(share),
    bytes: (n) => (n >= 1e9 ? gb.format(n / 1e9) : mb.format(n / 1e6)),
    rate: (n) => {
      const step = n < 1e3 ? 0 : n < 1e6 ? 1 : n < 1e9 ? 2 : 3;
      return (rates[step] ?? rates[0])?.format(n / 1000 ** step) ?? String(n);
    },
    celsius: (c) => degrees.format(c),
    fineShare: (v) => fine.format(v),
    time: (ms) => {
      const d = new Date(ms);
      return d.toDateString() === new Date().toDateString() ? clock.format(d) : dateClock.format(d);
    },
  };
}

/**
 * The language to show: the stored choice if the board still offers it, else the first of the
 * browser's languages the board offers (exactly or by base language), else English.
 */
export function chooseLanguage(
  available: readonly LanguageInfo[],
  stored: string | null,
  browser: readonly string[],
): string {
  const codes = available.map((l) => l.code);
  const find = (code: string) => codes.find((c) => c.toLowerCase() === code.toLowerCase());
  if (stored !== null && find(stored) !== undefined) return find(stored) ?? stored;
  // In the browser's order of preference: "de-DE, fr" means German before French.
  for (const wanted of browser) {
    const base = (wanted.split('-')[0] ?? wanted).toLowerCase();
    const match =
      find(wanted) ?? find(base) ?? codes.find((c) => c.split('-')[0]?.toLowerCase() === base);
    if (match !== undefined) return match;
  }
  return find('en') ?? codes[0] ?? 'en';
}
