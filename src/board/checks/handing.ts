import { createHash } from 'node:crypto';
import type { HandedCheck, HandedChecks } from '../../shared/checks/wire.js';
import type { Labels } from '../../shared/labels.js';
import type { CheckSettings } from './check-config.js';

/** Hex digits of a version: short to send in every report, long enough never to collide. */
export const CHECKS_VERSION_LENGTH = 20;

/** The version of "no checks": what an agent reports before it was handed anything. */
export const NO_CHECKS_VERSION = '';

/** Machines remembered before the memo starts again (names come and go; labels change). */
const REMEMBERED_MAX = 50_000;

/** JSON with every object's keys in order, so equal definitions give equal text on every board. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record)
      .filter((k) => record[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(record[k])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The version of a list of definitions: "" for none, else a digest of its canonical JSON. */
export function checksVersion(checks: readonly HandedCheck[]): string {
  if (checks.length === 0) return NO_CHECKS_VERSION;
  const digest = createHash('sha256').update(canonicalJson(checks)).digest('hex');
  return digest.slice(0, CHECKS_VERSION_LENGTH);
}

/** The checks a machine runs: those handed to agents whose board labels (and name) the selector matches. */
export function checksFor(
  checks: readonly CheckSettings[],
  name: string,
  labels: Labels,
): HandedCheck[] {
  const chosen: HandedCheck[] = [];
  for (const c of checks) {
    if (c.handed === null || c.runners.selector === null) continue;
    if (c.runners.selector.matches(labels, name)) chosen.push(c.handed);
  }
  // By name: the same config written in another order hands the same version.
  return chosen.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * Whether a runner that reports `reported` (absent: an agent that does not say) must be handed
 * `handed`: its version differs, or it says nothing and has checks to run.
 */
export function needsHanding(reported: string | undefined | null, handed: HandedChecks): boolean {
  if (reported === undefined || reported === null) return handed.checks.length > 0;
  return reported !== handed.version;
}

/**
 * What each machine is handed, memoized per config and per machine's label set: a report asks
 * with the machine's board labels (the same object until they change), and pays a map lookup;
 * the digest is computed once per distinct list of checks.
 */
export class CheckHanding {
  private config: readonly CheckSettings[] | null = null;
  private readonly byName = new Map<string, { labels: Labels; handed: HandedChecks }>();
  /** By the names of the checks chosen: machines with the same list share one object. */
  private readonly byList = new Map<string, HandedChecks>();

  /** `checks` is read at each call: a reload replaces the list, and the memo starts again. */
  constructor(private readonly checks: () => readonly CheckSettings[]) {}

  /** The checks `name` (with these board labels) runs now, and their version. */
  forMachine(name: string, labels: Labels): HandedChecks {
    const config = this.checks();
    if (config !== this.config) {
      this.config = config;
      this.byName.clear();
      this.byList.clear();
    }
    const known = this.byName.get(name);
    if (known !== undefined && known.labels === labels) return known.handed;
    const chosen = checksFor(config, name, labels);
    const list = chosen.map((c) => c.name).join('\n');
    let handed = this.byList.get(list);
    if (handed === undefined) {
      handed = { version: checksVersion(chosen), checks: chosen };
      this.byList.set(list, handed);
    }
    if (this.byName.size >= REMEMBERED_MAX) this.byName.clear();
    this.byName.set(name, { labels, handed });
    return handed;
  }

  /** What a report's answer carries for a machine that reports `reported`, or undefined: nothing. */
  answer(name: string, labels: Labels, reported: string | undefined): HandedChecks | undefined {
    // No checks in the config and none ever handed: nothing to look up.
    if (this.checks().length === 0 && (reported === undefined || reported === NO_CHECKS_VERSION))
      return undefined;
    const handed = this.forMachine(name, labels);
    return needsHanding(reported, handed) ? handed : undefined;
  }
}
