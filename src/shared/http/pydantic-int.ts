/**
 * pydantic-core's lax parsing of an integer from a string (`str_as_int` in src/input/shared.rs,
 * with jiter's `NumberInt::from_bytes`), so `?limit=1.0`, `" 3479_74"` or `+5` get the answer
 * FastAPI gives: a value, `int_parsing`, or `int_parsing_size` for a number of over 4300 digits.
 */
export type IntParse =
  | { ok: true; value: bigint }
  | { ok: false; type: 'int_parsing' | 'int_parsing_size' };

/** Rust's `char::is_whitespace` (Unicode White_Space), which `str::trim` strips. */
const RUST_WS =
  '[\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]';
const TRIM = new RegExp(`^${RUST_WS}+|${RUST_WS}+$`, 'gu');

const JSON_INT = /^-?(0|[1-9]\d*)$/;
const LEADING_RUN = /^-?[1-9]\d*/;

/** jiter's NumberInt::from_bytes: a JSON integer and nothing else, or why not. */
function jiterInt(s: string): bigint | 'invalid' | 'out_of_range' {
  // jiter gives up on a run of more than 4300 digits (sign included) before looking further.
  const run = LEADING_RUN.exec(s);
  if (run !== null && run[0].length > 4300) return 'out_of_range';
  return JSON_INT.test(s) ? BigInt(s) : 'invalid';
}

/** strip_leading_zeros: null where the text cannot be a number. */
function stripLeadingZeros(s: string): string | null {
  const first = s[0];
  if (first === undefined) return null;
  if (first !== '0') return (first >= '1' && first <= '9') || first === '-' ? s : null;
  for (let i = 1; i < s.length; i += 1) {
    const c = s[i] as string;
    if (c === '0' || c === '_') continue;
    if ((c >= '1' && c <= '9') || c === '-') return s.slice(i);
    if (c === '.') return s.slice(i - 1);
    return null;
  }
  return s.slice(-1);
}

function stripUnderscores(s: string): string | null {
  if (s.startsWith('_') || s.endsWith('_') || !s.includes('_') || s.includes('__')) return null;
  return s.replaceAll('_', '');
}

/** clean_int_str: the text with what Python's int() tolerates removed, or null. */
function cleanIntStr(input: string): string | null {
  const lengthBefore = input.length;
  let s = input.replace(TRIM, '');
  if (s.startsWith('+')) {
    if (s.startsWith('+-')) return null;
    s = s.slice(1);
  }
  let negative = false;
  if (s.startsWith('-')) {
    if (s.startsWith('--') || s.startsWith('-+')) return null;
    negative = true;
    s = s.slice(1);
  }
  const stripped = stripLeadingZeros(s);
  if (stripped === null) return null;
  s = stripped;
  const dot = s.indexOf('.');
  if (dot >= 0) {
    const decimals = s.slice(dot + 1);
    if (decimals !== '' && /^0+$/.test(decimals)) s = s.slice(0, dot);
  }
  const noUnderscores = stripUnderscores(s);
  if (noUnderscores !== null) return negative ? `-${noUnderscores}` : noUnderscores;
  if (lengthBefore === s.length) return null;
  return negative ? `-${s}` : s;
}

/** Parses a query or path string as pydantic v2 does for an `int` field in lax mode. */
export function pydanticInt(text: string): IntParse {
  const direct = jiterInt(text);
  if (typeof direct === 'bigint') return { ok: true, value: direct };
  if (direct === 'out_of_range') return { ok: false, type: 'int_parsing_size' };
  const cleaned = cleanIntStr(text);
  if (cleaned === null) return { ok: false, type: 'int_parsing' };
  const again = jiterInt(cleaned);
  return typeof again === 'bigint'
    ? { ok: true, value: again }
    : { ok: false, type: 'int_parsing' };
}
