import { type Condition, ConditionError, parseCondition } from '../../shared/checks/conditions.js';
import {
  CHECK_NAME_PATTERN,
  CHECKS_PER_RUNNER_MAX,
  type CheckType,
  type DnsOptions,
  type HandedCheck,
  type HttpOptions,
  type TlsOptions,
} from '../../shared/checks/wire.js';
import type { ConfigProblem } from '../../shared/config/config-error.js';
import { type Labels, labelsProblem, NO_LABELS, toLabels } from '../../shared/labels.js';
import { parseSelector, type Selector, SelectorError } from '../../shared/selector.js';
import { type Static, Type } from '../../shared/typebox.js';
import { TOKEN_MIN_LENGTH } from '../../shared/wire/common.js';

/** The longest push token (its URL path segment). */
export const PUSH_TOKEN_MAX_LENGTH = 200;

/** Seconds, or Gatus's `30s`, `5m`, `1h`. */
const Duration = Type.Union([
  Type.String({ pattern: '^[0-9]{1,6}(ms|s|m|h|d)$', description: 'e.g. 30s, 5m, 1h' }),
  Type.Number({ exclusiveMinimum: 0, description: 'seconds' }),
]);

/** One entry of `checks:` in board.yaml (DESIGN section 16). */
export const CheckConfig = Type.Object(
  {
    name: Type.String({ pattern: CHECK_NAME_PATTERN }),
    // Spelled out (not mapped from RUN_TYPES): from a mapped array TypeBox derives `never`.
    type: Type.Union([
      Type.Literal('http'),
      Type.Literal('tcp'),
      Type.Literal('dns'),
      Type.Literal('tls'),
      Type.Literal('icmp'),
      Type.Literal('push'),
    ]),
    target: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
    interval: Type.Optional(Duration),
    timeout: Type.Optional(Duration),
    conditions: Type.Optional(Type.Array(Type.String({ maxLength: 1000 }), { maxItems: 50 })),
    runners: Type.Optional(
      Type.Object(
        {
          board: Type.Optional(Type.Boolean()),
          selector: Type.Optional(Type.String({ maxLength: 4096 })),
          quorum: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
        },
        { additionalProperties: false },
      ),
    ),
    failure_threshold: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
    success_threshold: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
    labels: Type.Optional(Type.Record(Type.String(), Type.String())),
    allow_private: Type.Optional(Type.Boolean()),
    // http
    method: Type.Optional(Type.String({ pattern: '^[A-Za-z]{1,16}$' })),
    headers: Type.Optional(
      Type.Record(Type.String({ maxLength: 256 }), Type.String({ maxLength: 4096 })),
    ),
    body: Type.Optional(Type.String({ maxLength: 65_536 })),
    follow_redirects: Type.Optional(Type.Boolean()),
    verify_tls: Type.Optional(Type.Boolean()),
    // dns
    record: Type.Optional(Type.String({ pattern: '^[A-Za-z]{1,10}$' })),
    resolver: Type.Optional(Type.String({ maxLength: 300 })),
    // tls
    hostname: Type.Optional(Type.String({ maxLength: 253 })),
    // push
    period: Type.Optional(Duration),
    grace: Type.Optional(Duration),
    token: Type.Optional(
      Type.String({ minLength: TOKEN_MIN_LENGTH, maxLength: PUSH_TOKEN_MAX_LENGTH }),
    ),
  },
  { additionalProperties: false },
);
export type CheckConfig = Static<typeof CheckConfig>;

/** `checks:` in board.yaml. */
export const ChecksConfig = Type.Array(CheckConfig, { maxItems: CHECKS_PER_RUNNER_MAX });

/** Who runs a check: agents whose board labels match, the board itself, and how many must fail. */
export interface CheckRunners {
  board: boolean;
  /** Null: no agent runs it. */
  selector: Selector | null;
  quorum: number;
}

/** A heartbeat check's terms: a beat within `periodMs + graceMs`, opened by its own token. */
export interface PushTerms {
  periodMs: number;
  graceMs: number;
  /** The secret in the push URL: never shown, logged or journaled. */
  token: string;
}

/** A check as the board keeps it: parsed once at config load. */
export interface CheckSettings {
  name: string;
  type: CheckType;
  /** '' for push. */
  target: string;
  intervalMs: number;
  timeoutMs: number;
  conditions: readonly Condition[];
  runners: CheckRunners;
  failureThreshold: number;
  successThreshold: number;
  labels: Labels;
  allowPrivate: boolean;
  /** What runners are handed (null for push). */
  handed: HandedCheck | null;
  push: PushTerms | null;
}

export const CHECK_DEFAULTS = {
  intervalMs: 60_000,
  timeoutMs: 10_000,
  failureThreshold: 2,
  successThreshold: 1,
  quorum: 1,
  record: 'A',
} as const;

const UNIT_MS: Readonly<Record<string, number>> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/** A schema-valid duration (seconds, or 250ms, 30s, 5m, 1h, 1d) in milliseconds. */
function ms(value: string | number): number {
  if (typeof value === 'number') return value * 1000;
  const [, n, unit] = /^([0-9]+)(ms|s|m|h|d)$/.exec(value) ?? [];
  return Number(n) * (UNIT_MS[unit ?? ''] ?? Number.NaN);
}

/** The conditions of a check, each parsed; a bad one is a problem naming its position. */
function readConditions(
  texts: readonly string[],
  field: string,
  problems: ConfigProblem[],
): Condition[] {
  const parsed: Condition[] = [];
  for (const [i, text] of texts.entries()) {
    try {
      parsed.push(parseCondition(text));
    } catch (error) {
      if (!(error instanceof ConditionError)) throw error;
      problems.push({
        field: `${field}[${i}]`,
        problem: `${error.message} at position ${error.position + 1}: ${text}`,
      });
    }
  }
  return parsed;
}

/** `checks:` parsed once; every problem names its field (and a condition's position). */
export function readChecks(
  raw: readonly CheckConfig[] | undefined,
  problems: ConfigProblem[],
): CheckSettings[] {
  const checks: CheckSettings[] = [];
  const names = new Set<string>();
  const tokens = new Set<string>();
  for (const [i, c] of (raw ?? []).entries()) {
    const at = `checks[${i}]`;
    const before = problems.length;
    if (names.has(c.name))
      problems.push({ field: `${at}.name`, problem: `duplicate check name ${c.name}` });
    names.add(c.name);
    let selector: Selector | null = null;
    if (c.runners?.selector !== undefined) {
      try {
        selector = parseSelector(c.runners.selector);
      } catch (error) {
        if (!(error instanceof SelectorError)) throw error;
        problems.push({ field: `${at}.runners.selector`, problem: error.message });
      }
    }
    const labels =
      c.labels === undefined ? NO_LABELS : labelsOf(c.labels, `${at}.labels`, problems);
    const conditions = readConditions(c.conditions ?? [], `${at}.conditions`, problems);
    const intervalMs = c.interval === undefined ? CHECK_DEFAULTS.intervalMs : ms(c.interval);
    const timeoutMs = c.timeout === undefined ? CHECK_DEFAULTS.timeoutMs : ms(c.timeout);
    if (intervalMs < 1000) problems.push({ field: `${at}.interval`, problem: 'at least 1 s' });
    let push: PushTerms | null = null;
    if (c.type === 'push') {
      if (c.token === undefined) {
        problems.push({
          field: `${at}.token`,
          problem: `a push check needs a token (at least ${TOKEN_MIN_LENGTH} characters)`,
        });
      } else if (tokens.has(c.token)) {
        problems.push({ field: `${at}.token`, problem: 'the same token as another push check' });
      } else {
        tokens.add(c.token);
      }
      if (c.period === undefined)
        problems.push({ field: `${at}.period`, problem: 'a push check needs a period' });
      push = {
        periodMs: c.period === undefined ? 0 : ms(c.period),
        graceMs: c.grace === undefined ? 0 : ms(c.grace),
        token: c.token ?? '',
      };
    } else {
      if (c.target === undefined)
        problems.push({ field: `${at}.target`, problem: `a ${c.type} check needs a target` });
      if (c.runners?.board !== true && selector === null && c.runners?.selector === undefined) {
        problems.push({
          field: `${at}.runners`,
          problem:
            'nobody runs it: give runners.selector (agents by board label) or runners.board: true',
        });
      }
    }
    if (problems.length > before) continue;
    const settings: Omit<CheckSettings, 'handed'> = {
      name: c.name,
      type: c.type,
      target: c.target ?? '',
      intervalMs,
      timeoutMs,
      conditions,
      runners: {
        board: c.runners?.board ?? false,
        selector,
        quorum: c.runners?.quorum ?? CHECK_DEFAULTS.quorum,
      },
      failureThreshold: c.failure_threshold ?? CHECK_DEFAULTS.failureThreshold,
      successThreshold: c.success_threshold ?? CHECK_DEFAULTS.successThreshold,
      labels,
      allowPrivate: c.allow_private ?? false,
      push,
    };
    checks.push({ ...settings, handed: c.type === 'push' ? null : handedCheck(c, settings) });
  }
  return checks;
}

function labelsOf(raw: Record<string, string>, field: string, problems: ConfigProblem[]): Labels {
  const problem = labelsProblem(raw);
  if (problem === null) return toLabels(raw);
  problems.push({ field, problem });
  return NO_LABELS;
}

/** The definition a runner is handed: the type's options with their defaults, no secret. */
function handedCheck(c: CheckConfig, s: Omit<CheckSettings, 'handed'>): HandedCheck {
  const base = {
    name: s.name,
    type: s.type as HandedCheck['type'],
    target: s.target,
    interval_s: s.intervalMs / 1000,
    timeout_s: s.timeoutMs / 1000,
    conditions: s.conditions.map((x) => x.text),
  };
  if (c.type === 'http') {
    const http: HttpOptions = {
      method: (c.method ?? 'GET').toUpperCase(),
      headers: c.headers ?? {},
      body: c.body ?? '',
      follow_redirects: c.follow_redirects ?? true,
      verify_tls: c.verify_tls ?? true,
    };
    return { ...base, http };
  }
  if (c.type === 'dns') {
    const dns: DnsOptions = {
      record: (c.record ?? CHECK_DEFAULTS.record).toUpperCase(),
      ...(c.resolver === undefined ? {} : { resolver: c.resolver }),
    };
    return { ...base, dns };
  }
  if (c.type === 'tls') {
    const tls: TlsOptions = c.hostname === undefined ? {} : { hostname: c.hostname };
    return { ...base, tls };
  }
  return base;
}
