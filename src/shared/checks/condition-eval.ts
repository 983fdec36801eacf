import type { Operand, ParsedCondition, PathStep, PlaceholderOperand } from './condition-types.js';
import { durationMs, formatDuration, globMatch, numberOf } from './condition-values.js';
import type { Observation } from './observation.js';

/** A resolved value longer than this is cut in a failure text: a body is data, not a message. */
const SHOWN_MAX = 60;

/** What one side resolved to; `invalid` when a [BODY] path found nothing (Gatus's "(INVALID)"). */
interface Resolved {
  value: string;
  invalid: boolean;
}

const MISSING = Symbol('missing');

/** Walks a JSON value along a [BODY] path, as Gatus's jsonpath does. */
function walk(json: unknown, path: readonly PathStep[]): unknown {
  let at: unknown = json;
  for (const step of path) {
    if (typeof step === 'number') {
      if (!Array.isArray(at) || step >= at.length) return MISSING;
      at = at[step];
    } else {
      if (at === null || typeof at !== 'object' || Array.isArray(at)) return MISSING;
      if (!Object.hasOwn(at, step)) return MISSING;
      at = (at as Record<string, unknown>)[step];
    }
  }
  return at === null || at === undefined ? MISSING : at;
}

function parsedBody(body: string): unknown {
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return MISSING;
  }
}

function text(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

function basic(o: Observation, p: PlaceholderOperand): string {
  switch (p.name) {
    case 'STATUS':
      return String(o.status ?? 0);
    case 'RESPONSE_TIME':
      return String(Math.round(o.responseTimeMs));
    case 'CONNECTED':
      return String(o.connected);
    case 'IP':
      return o.ip ?? '';
    case 'CERTIFICATE_EXPIRATION':
      return String(Math.round(o.certificateExpirationMs ?? 0));
    case 'DNS_RCODE':
      return o.dnsRcode ?? '';
    case 'BODY':
      return (o.body ?? '').trim();
  }
}

function resolvePlaceholder(
  o: Observation,
  p: PlaceholderOperand,
  fn: 'len' | 'has' | null,
): Resolved {
  if (p.name !== 'BODY' || p.path.length === 0) {
    const value = basic(o, p);
    if (fn === 'has') return { value: String(value.length > 0), invalid: false };
    if (fn === 'len' && p.name === 'BODY') {
      const json = parsedBody(value);
      if (Array.isArray(json)) return { value: String(json.length), invalid: false };
    }
    if (fn === 'len') return { value: String(value.length), invalid: false };
    return { value, invalid: false };
  }
  const found = walk(parsedBody(o.body ?? ''), p.path);
  if (fn === 'has') return { value: String(found !== MISSING), invalid: false };
  if (found === MISSING) return { value: '', invalid: true };
  if (fn === 'len') {
    const length = Array.isArray(found) ? found.length : text(found).length;
    return { value: String(length), invalid: false };
  }
  return { value: text(found), invalid: false };
}

function resolve(o: Observation, side: Operand): Resolved {
  switch (side.kind) {
    case 'placeholder':
      return resolvePlaceholder(o, side, null);
    case 'len':
    case 'has':
      return resolvePlaceholder(o, side.inner, side.kind);
    default:
      return { value: side.text, invalid: false };
  }
}

function isEqual(left: Operand, l: string, right: Operand, r: string): boolean {
  if (left.kind === 'pat') return globMatch(left.pattern, r);
  if (right.kind === 'pat') return globMatch(right.pattern, l);
  if (left.kind === 'any') return left.options.includes(r);
  if (right.kind === 'any') return right.options.includes(l);
  const ln = numberOf(l);
  const rn = numberOf(r);
  if (ln !== null && rn !== null) return ln === rn;
  return l === r;
}

/** A side of `<`, `>`, …: a duration (in ms) or a number; anything else counts as 0, as in Gatus. */
function numeric(value: string): number {
  const d = durationMs(value);
  if (d !== null && d !== 0) return d;
  return numberOf(value) ?? 0;
}

function cut(value: string): string {
  return value.length > SHOWN_MAX ? `${value.slice(0, SHOWN_MAX)}…` : value;
}

/** One side as Gatus shows it: the text, then what it resolved to in parentheses when different. */
function shown(side: Operand, r: Resolved, asDuration: boolean): string {
  if (r.invalid) return `${side.text} (INVALID)`;
  if (side.kind === 'literal' || side.kind === 'pat' || side.kind === 'any') return side.text;
  const value = asDuration ? formatDuration(Number(r.value)) : r.value;
  return value === side.text ? side.text : `${side.text} (${cut(value)})`;
}

function isCertificate(side: Operand): boolean {
  return side.kind === 'placeholder' && side.name === 'CERTIFICATE_EXPIRATION';
}

/** Null when the condition holds on this observation; else its failure text. */
export function evaluate(p: ParsedCondition, o: Observation): string | null {
  const l = resolve(o, p.left);
  const r = resolve(o, p.right);
  let ok: boolean;
  if (l.invalid || r.invalid) ok = false;
  else if (p.operator === '==') ok = isEqual(p.left, l.value, p.right, r.value);
  else if (p.operator === '!=') ok = !isEqual(p.left, l.value, p.right, r.value);
  else {
    const a = numeric(l.value);
    const b = numeric(r.value);
    ok =
      p.operator === '<'
        ? a < b
        : p.operator === '<='
          ? a <= b
          : p.operator === '>'
            ? a > b
            : a >= b;
  }
  if (ok) return null;
  const left = shown(p.left, l, isCertificate(p.left));
  const right = shown(p.right, r, isCertificate(p.right));
  return `${left} ${p.operator} ${right}`;
}
