import type { TSchema } from '../typebox.js';
import { pydanticInt } from './pydantic-int.js';

/** One entry of a FastAPI `HTTPValidationError.detail`, as pydantic v2 writes it. */
export interface ValidationIssue {
  type: string;
  loc: (string | number)[];
  msg: string;
  input: unknown;
  ctx?: Record<string, unknown>;
}

export type Part = 'path' | 'query' | 'body';

type Json = Record<string, unknown>;

function asSchema(schema: TSchema): Json {
  return schema as unknown as Json;
}

// What is derived from a schema node is derived once: a report is checked thousands of times
// a second, and compiling its patterns or collecting its required keys each time showed in
// the profile (bench: reports).
const patterns = new WeakMap<Json, RegExp>();
const requiredKeys = new WeakMap<Json, ReadonlySet<string>>();

function patternOf(s: Json, source: string): RegExp {
  let re = patterns.get(s);
  if (re === undefined) {
    re = new RegExp(source, 'u');
    patterns.set(s, re);
  }
  return re;
}

function requiredOf(s: Json): ReadonlySet<string> {
  let set = requiredKeys.get(s);
  if (set === undefined) {
    set = new Set(Array.isArray(s.required) ? (s.required as string[]) : []);
    requiredKeys.set(s, set);
  }
  return set;
}

/** The length in code points, as Python counts it, without building an array of them. */
function codePoints(value: string): number {
  let n = value.length;
  for (let i = 0; i < value.length; i += 1) {
    const c = value.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < value.length) {
      const d = value.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n -= 1;
        i += 1;
      }
    }
  }
  return n;
}

function enumValues(s: Json): unknown[] | null {
  if (Array.isArray(s.enum)) return s.enum;
  const options = s.anyOf ?? s.oneOf;
  if (Array.isArray(options) && options.every((o) => o && typeof o === 'object' && 'const' in o)) {
    return options.map((o: Json) => o.const);
  }
  return null;
}

function expected(values: unknown[]): string {
  const quoted = values.map((v) => (typeof v === 'string' ? `'${v}'` : String(v)));
  if (quoted.length <= 1) return quoted.join('');
  return `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}`;
}

const FLOAT_TEXT = /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/;

/**
 * Checks one value against a (small) JSON schema the way pydantic v2 would in FastAPI, and
 * returns the value as the handler should see it. `lax` is true for path and query strings,
 * where numbers arrive as text.
 */
export function check(
  schema: TSchema,
  value: unknown,
  loc: (string | number)[],
  issues: ValidationIssue[],
  lax: boolean,
): unknown {
  const s = asSchema(schema);
  const values = enumValues(s);
  if (values !== null) {
    if (values.includes(value)) return value;
    const exp = expected(values);
    issues.push({
      type: 'enum',
      loc,
      msg: `Input should be ${exp}`,
      input: value,
      ctx: { expected: exp },
    });
    return value;
  }
  switch (s.type) {
    case 'string':
      return checkString(s, value, loc, issues);
    case 'integer':
    case 'number':
      return checkNumber(s, value, loc, issues, lax);
    case 'boolean':
      if (typeof value === 'boolean') return value;
      issues.push({ type: 'bool_type', loc, msg: 'Input should be a valid boolean', input: value });
      return value;
    case 'array':
      return checkArray(s, value, loc, issues, lax);
    case 'object':
      return checkObject(s, value, loc, issues, lax);
    default:
      return value;
  }
}

function checkString(
  s: Json,
  value: unknown,
  loc: (string | number)[],
  issues: ValidationIssue[],
): unknown {
  if (typeof value !== 'string') {
    issues.push({ type: 'string_type', loc, msg: 'Input should be a valid string', input: value });
    return value;
  }
  const bounded = typeof s.minLength === 'number' || typeof s.maxLength === 'number';
  const length = bounded ? codePoints(value) : 0;
  if (typeof s.minLength === 'number' && length < s.minLength) {
    const n = s.minLength;
    issues.push({
      type: 'string_too_short',
      loc,
      msg: `String should have at least ${n} character${n === 1 ? '' : 's'}`,
      input: value,
      ctx: { min_length: n },
    });
  } else if (typeof s.maxLength === 'number' && length > s.maxLength) {
    const n = s.maxLength;
    issues.push({
      type: 'string_too_long',
      loc,
      msg: `String should have at most ${n} character${n === 1 ? '' : 's'}`,
      input: value,
      ctx: { max_length: n },
    });
  } else if (typeof s.pattern === 'string' && !patternOf(s, s.pattern).test(value)) {
    issues.push({
      type: 'string_pattern_mismatch',
      loc,
      msg: `String should match pattern '${s.pattern}'`,
      input: value,
      ctx: { pattern: s.pattern },
    });
  }
  return value;
}

const INT_PARSING_MSG = {
  int_parsing: 'Input should be a valid integer, unable to parse string as an integer',
  int_parsing_size: 'Unable to parse input string as an integer, exceeded maximum size',
} as const;

function pushBound(
  issues: ValidationIssue[],
  bound: 'ge' | 'le',
  limit: number,
  loc: (string | number)[],
  input: unknown,
): void {
  issues.push(
    bound === 'ge'
      ? {
          type: 'greater_than_equal',
          loc,
          msg: `Input should be greater than or equal to ${limit}`,
          input,
          ctx: { ge: limit },
        }
      : {
          type: 'less_than_equal',
          loc,
          msg: `Input should be less than or equal to ${limit}`,
          input,
          ctx: { le: limit },
        },
  );
}

function checkNumber(
  s: Json,
  value: unknown,
  loc: (string | number)[],
  issues: ValidationIssue[],
  lax: boolean,
): unknown {
  const integer = s.type === 'integer';
  let n: number;
  if (typeof value === 'number' && !Number.isNaN(value)) {
    n = value;
    if (integer && !Number.isInteger(n)) {
      issues.push({
        type: 'int_from_float',
        loc,
        msg: 'Input should be a valid integer, got a number with a fractional part',
        input: value,
      });
      return value;
    }
  } else if (typeof value === 'string' && lax && integer) {
    const parsed = pydanticInt(value);
    if (!parsed.ok) {
      issues.push({ type: parsed.type, loc, msg: INT_PARSING_MSG[parsed.type], input: value });
      return value;
    }
    // A number far past the limits is compared as a bigint, then only used once within them.
    const big = parsed.value;
    if (typeof s.minimum === 'number' && big < BigInt(s.minimum)) {
      pushBound(issues, 'ge', s.minimum, loc, value);
    } else if (typeof s.maximum === 'number' && big > BigInt(s.maximum)) {
      pushBound(issues, 'le', s.maximum, loc, value);
    }
    return Number(big);
  } else if (typeof value === 'string' && lax) {
    if (!FLOAT_TEXT.test(value)) {
      issues.push({
        type: 'float_parsing',
        loc,
        msg: 'Input should be a valid number, unable to parse string as a number',
        input: value,
      });
      return value;
    }
    n = Number(value);
  } else {
    issues.push(
      integer
        ? { type: 'int_type', loc, msg: 'Input should be a valid integer', input: value }
        : { type: 'float_type', loc, msg: 'Input should be a valid number', input: value },
    );
    return value;
  }
  if (typeof s.minimum === 'number' && n < s.minimum) {
    pushBound(issues, 'ge', s.minimum, loc, value);
  } else if (typeof s.maximum === 'number' && n > s.maximum) {
    pushBound(issues, 'le', s.maximum, loc, value);
  }
  return n;
}

function checkArray(
  s: Json,
  value: unknown,
  loc: (string | number)[],
  issues: ValidationIssue[],
  lax: boolean,
): unknown {
  if (!Array.isArray(value)) {
    issues.push({ type: 'list_type', loc, msg: 'Input should be a valid list', input: value });
    return value;
  }
  if (typeof s.maxItems === 'number' && value.length > s.maxItems) {
    issues.push({
      type: 'too_long',
      loc,
      msg: `List should have at most ${s.maxItems} items after validation, not ${value.length}`,
      input: value,
      ctx: { field_type: 'List', max_length: s.maxItems, actual_length: value.length },
    });
    return value;
  }
  const items = s.items as TSchema | undefined;
  if (items === undefined) return value;
  return value.map((item, i) => check(items, item, [...loc, i], issues, lax));
}

function checkObject(
  s: Json,
  value: unknown,
  loc: (string | number)[],
  issues: ValidationIssue[],
  lax: boolean,
): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    issues.push({
      type: loc.length <= 1 ? 'model_attributes_type' : 'dict_type',
      loc,
      msg:
        loc.length <= 1
          ? 'Input should be a valid dictionary or object to extract fields from'
          : 'Input should be a valid dictionary',
      input: value,
    });
    return value;
  }
  const obj = value as Json;
  const out: Json = { ...obj };
  const required = requiredOf(s);
  const properties = (s.properties ?? {}) as Record<string, TSchema>;
  for (const [key, prop] of Object.entries(properties)) {
    if (!(key in obj) || obj[key] === undefined) {
      if (required.has(key)) {
        issues.push({ type: 'missing', loc: [...loc, key], msg: 'Field required', input: value });
      } else if ('default' in prop) {
        out[key] = (prop as unknown as Json).default;
      }
      continue;
    }
    out[key] = check(prop, obj[key], [...loc, key], issues, lax);
  }
  return out;
}

/**
 * Validates the path or query parameters of a request against the properties of an object
 * schema, in the order they are declared, as FastAPI does for scalar parameters.
 */
export function checkParams(
  schema: TSchema,
  raw: Record<string, unknown>,
  part: 'path' | 'query',
  issues: ValidationIssue[],
): Record<string, unknown> {
  const s = asSchema(schema);
  const out: Record<string, unknown> = {};
  const required = new Set(Array.isArray(s.required) ? (s.required as string[]) : []);
  for (const [key, prop] of Object.entries((s.properties ?? {}) as Record<string, TSchema>)) {
    let value = raw[key];
    // Repeated query parameters arrive as an array; FastAPI takes the last one for a scalar.
    if (Array.isArray(value)) value = value.at(-1);
    if (value === undefined) {
      if (required.has(key)) {
        issues.push({ type: 'missing', loc: [part, key], msg: 'Field required', input: null });
      } else if ('default' in prop) {
        out[key] = (prop as unknown as Json).default;
      }
      continue;
    }
    out[key] = check(prop, value, [part, key], issues, true);
  }
  return out;
}
