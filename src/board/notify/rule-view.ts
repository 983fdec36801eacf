import type { Rule } from './config.js';

/** A rule as GET /api/notify shows it (what the config says, defaults applied). */
export interface RuleView {
  events: string[];
  machines: string[];
  /** The rule's label selector, or null (every machine the globs name). */
  selector: string | null;
  channels: string[];
  after: number;
  failures: number;
  repeat: number;
  repeat_max: number | null;
  why?: string[];
  metric?: string;
  containers?: string[];
  checks?: string[];
  path?: string;
  above?: number;
  for?: number;
}

/** The rules for the API. */
export function describeRules(rules: readonly Rule[]): RuleView[] {
  return rules.map((r) => {
    const view: RuleView = {
      events: [...r.events],
      machines: [...r.machineGlobs],
      selector: r.selector,
      channels: [...r.channels],
      after: r.afterMs / 1000,
      failures: r.failures,
      repeat: r.repeatMs / 1000,
      repeat_max: r.repeatMax,
    };
    if (r.events.has('bell')) view.why = [...r.why];
    if (r.metric !== null) view.metric = r.metric;
    if (r.containerGlobs !== null) view.containers = [...r.containerGlobs];
    if (r.checkGlobs !== null) view.checks = [...r.checkGlobs];
    if (r.path !== null) view.path = r.path;
    if (r.above !== null) view.above = r.above;
    if (r.events.has('threshold')) view.for = r.forMs / 1000;
    return view;
  });
}
