import { readFileSync } from 'node:fs';
import type { ConfigProblem } from '../../shared/config/config-error.js';
import type { Labels } from '../../shared/labels.js';
import {
  parseSelector,
  SELECTOR_MAX,
  type Selector,
  SelectorError,
} from '../../shared/selector.js';
import { type Static, Type } from '../../shared/typebox.js';
import { NAME_PATTERN } from '../../shared/wire/common.js';
import { parseChannelUrl } from './channels/index.js';
import { KINDS, type ParsedChannel } from './channels/types.js';
import { compileGlob } from './glob.js';

export const EVENTS = [
  'down',
  'up',
  'late',
  'bell',
  'threshold',
  'action_failed',
  'container',
  'disk_health',
  'check',
] as const;
export type EventName = (typeof EVENTS)[number];
/** What a threshold rule may watch: shares (cpu, mem, disk), load, °C (temp), bytes/s (net_…). */
export const METRICS = ['cpu', 'mem', 'load', 'disk', 'temp', 'net_rx', 'net_tx'] as const;
export type MetricName = (typeof METRICS)[number];

const Seconds = Type.Number({ minimum: 0 });

const ChannelConfig = Type.Object(
  {
    name: Type.String({ pattern: NAME_PATTERN }),
    url: Type.String({ minLength: 1, maxLength: 4096 }),
    secret: Type.Optional(Type.String({ minLength: 16 })),
  },
  { additionalProperties: false },
);

const RuleConfig = Type.Object(
  {
    events: Type.Array(
      Type.Union([
        Type.Literal('down'),
        Type.Literal('up'),
        Type.Literal('late'),
        Type.Literal('bell'),
        Type.Literal('threshold'),
        Type.Literal('action_failed'),
        Type.Literal('container'),
        Type.Literal('disk_health'),
        Type.Literal('check'),
      ]),
      { minItems: 1 },
    ),
    machines: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 200 }))),
    /** A label selector (docs/labels.md): the rule applies to the machines it selects too. */
    selector: Type.Optional(Type.String({ maxLength: SELECTOR_MAX })),
    channels: Type.Array(Type.String({ pattern: NAME_PATTERN }), { minItems: 1 }),
    after: Type.Optional(Seconds),
    failures: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000 })),
    repeat: Type.Optional(Seconds),
    repeat_max: Type.Optional(Type.Integer({ minimum: 0 })),
    why: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 64 }))),
    metric: Type.Optional(
      Type.Union([
        Type.Literal('cpu'),
        Type.Literal('mem'),
        Type.Literal('load'),
        Type.Literal('disk'),
        Type.Literal('temp'),
        Type.Literal('net_rx'),
        Type.Literal('net_tx'),
      ]),
    ),
    containers: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 255 }))),
    /** check rules: check-name globs (absent: every check). */
    checks: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 200 }))),
    path: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    above: Type.Optional(Type.Number()),
    for: Type.Optional(Seconds),
  },
  { additionalProperties: false },
);

/** The `notify:` section of board.yaml. */
export const NotifyConfigFile = Type.Object(
  {
    channels: Type.Optional(Type.Array(ChannelConfig)),
    rules: Type.Optional(Type.Array(RuleConfig)),
    templates: Type.Optional(Type.Record(Type.String(), Type.String({ maxLength: 2000 }))),
    /** Seconds one try of a delivery may take. */
    timeout: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 300 })),
    /** Messages waiting for delivery at most. */
    queue: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
  },
  { additionalProperties: false },
);
export type NotifyConfigFile = Static<typeof NotifyConfigFile>;

/** A channel, its URL parsed (the URL itself is not kept: only what sending needs). */
export interface Channel {
  name: string;
  parsed: ParsedChannel;
}

/** A rule with its defaults applied. */
export interface Rule {
  /** Its position in the config (rules[i]), for the API and logs. */
  index: number;
  /**
   * What it says, as text: a reload that keeps a rule keeps what it has sent (no second "down"
   * for a machine already reported, reminders counted on).
   */
  key: string;
  events: ReadonlySet<EventName>;
  /** The globs as written, for the API. */
  machineGlobs: readonly string[];
  /** The label selector as written (trimmed), or null: every machine the globs name. */
  selector: string | null;
  /** Whether the rule applies to machine `name` with (merged) `labels`: globs and selector. */
  matches(name: string, labels: Labels): boolean;
  channels: readonly string[];
  afterMs: number;
  failures: number;
  repeatMs: number;
  /** Reminders at most; null = unbounded. */
  repeatMax: number | null;
  why: ReadonlySet<string>;
  metric: MetricName | null;
  /** container rules: the container-name globs as written (null: every container). */
  containerGlobs: readonly string[] | null;
  containerMatches(name: string): boolean;
  /** check rules: the check-name globs as written (null: every check). */
  checkGlobs: readonly string[] | null;
  checkMatches(name: string): boolean;
  path: string | null;
  above: number | null;
  forMs: number;
}

/** Everything the notifier needs, checked. */
export interface NotifySettings {
  channels: Channel[];
  rules: Rule[];
  /** By channel name or kind. */
  templates: Map<string, string>;
  timeoutMs: number;
  queueMax: number;
}

export const NOTIFY_DEFAULTS = { timeoutS: 10, queue: 1000, why: ['attention', 'error'] } as const;

/** No channels, no rules. */
export function emptyNotifySettings(): NotifySettings {
  return {
    channels: [],
    rules: [],
    templates: new Map(),
    timeoutMs: NOTIFY_DEFAULTS.timeoutS * 1000,
    queueMax: NOTIFY_DEFAULTS.queue,
  };
}

/**
 * Checks the `notify:` section beyond its schema (channel URLs, names rules point at, fields
 * that belong together); each problem names its field and never quotes a URL.
 */
export function notifySettings(
  raw: NotifyConfigFile | undefined,
  problems: ConfigProblem[],
  readFile: (path: string) => string = (path) => readFileSync(path, 'utf8'),
): NotifySettings {
  const settings = emptyNotifySettings();
  if (raw === undefined) return settings;
  const names = new Set<string>();
  for (const [i, c] of (raw.channels ?? []).entries()) {
    const field = `notify.channels[${i}]`;
    if (names.has(c.name)) {
      problems.push({ field: `${field}.name`, problem: `duplicate channel name ${c.name}` });
      continue;
    }
    names.add(c.name);
    try {
      const options = c.secret === undefined ? { readFile } : { secret: c.secret, readFile };
      settings.channels.push({ name: c.name, parsed: parseChannelUrl(c.url, options) });
    } catch (error) {
      problems.push({ field: `${field}.url`, problem: (error as Error).message });
    }
  }
  for (const [i, r] of (raw.rules ?? []).entries()) {
    const field = `notify.rules[${i}]`;
    const events = new Set<EventName>(r.events as readonly EventName[]);
    for (const [j, name] of r.channels.entries()) {
      if (!names.has(name))
        problems.push({ field: `${field}.channels[${j}]`, problem: `no channel named ${name}` });
    }
    if (r.after !== undefined && r.failures !== undefined)
      problems.push({ field: `${field}.failures`, problem: 'give after or failures, not both' });
    if (events.has('threshold')) {
      if (r.metric === undefined)
        problems.push({ field: `${field}.metric`, problem: 'is required for threshold' });
      if (r.above === undefined)
        problems.push({ field: `${field}.above`, problem: 'is required for threshold' });
    } else {
      for (const key of ['metric', 'above', 'for'] as const) {
        if (r[key] !== undefined)
          problems.push({ field: `${field}.${key}`, problem: 'applies to threshold rules only' });
      }
    }
    if (r.path !== undefined && r.metric !== 'disk')
      problems.push({ field: `${field}.path`, problem: 'applies to metric: disk only' });
    if (r.why !== undefined && !events.has('bell'))
      problems.push({ field: `${field}.why`, problem: 'applies to bell rules only' });
    if (r.containers !== undefined && !events.has('container'))
      problems.push({ field: `${field}.containers`, problem: 'applies to container rules only' });
    if (r.checks !== undefined && !events.has('check'))
      problems.push({ field: `${field}.checks`, problem: 'applies to check rules only' });
    const globs = r.machines ?? ['*'];
    const compiled = globs.map(compileGlob);
    const selector = ruleSelector(r.selector, `${field}.selector`, problems);
    const containerGlobs = r.containers?.map(compileGlob) ?? null;
    const checkGlobs = r.checks?.map(compileGlob) ?? null;
    settings.rules.push({
      index: i,
      key: JSON.stringify(r),
      events,
      machineGlobs: globs,
      selector: selector === null ? null : selector.text,
      matches: (name, labels) =>
        compiled.some((g) => g.test(name)) && (selector?.matches(labels, name) ?? true),
      channels: r.channels,
      afterMs: (r.after ?? 0) * 1000,
      failures: r.failures ?? 1,
      repeatMs: (r.repeat ?? 0) * 1000,
      repeatMax: r.repeat_max ?? null,
      why: new Set(r.why ?? NOTIFY_DEFAULTS.why),
      metric: (r.metric as MetricName | undefined) ?? null,
      containerGlobs: r.containers ?? null,
      containerMatches: (name) => containerGlobs?.some((g) => g.test(name)) ?? true,
      checkGlobs: r.checks ?? null,
      checkMatches: (name) => checkGlobs?.some((g) => g.test(name)) ?? true,
      path: r.path ?? null,
      above: r.above ?? null,
      forMs: (r.for ?? 0) * 1000,
    });
  }
  for (const [key, template] of Object.entries(raw.templates ?? {})) {
    if (!names.has(key) && !(KINDS as readonly string[]).includes(key)) {
      problems.push({
        field: `notify.templates.${key}`,
        problem: `names neither a channel nor a kind (${KINDS.join(', ')})`,
      });
    }
    settings.templates.set(key, template);
  }
  if (raw.timeout !== undefined) settings.timeoutMs = raw.timeout * 1000;
  if (raw.queue !== undefined) settings.queueMax = raw.queue;
  return settings;
}

/** A rule's `selector:` parsed once (null: none), or a problem naming where it is wrong. */
function ruleSelector(
  text: string | undefined,
  field: string,
  problems: ConfigProblem[],
): Selector | null {
  if (text === undefined) return null;
  try {
    const selector = parseSelector(text);
    return selector.everything ? null : selector;
  } catch (error) {
    if (!(error instanceof SelectorError)) throw error;
    problems.push({ field, problem: `${error.problem} at position ${error.position}` });
    return null;
  }
}
