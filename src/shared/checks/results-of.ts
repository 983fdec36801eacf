import { Compile } from '../typebox.js';
import { CHECKS_PER_RUNNER_MAX, CheckResult } from './wire.js';

const isResult = Compile(CheckResult);

/**
 * The well-formed check results an overview carries (an older or home-made agent's malformed
 * ones are left out, one by one); null when it carries none at all.
 */
export function checkResultsOf(overview: Record<string, unknown>): CheckResult[] | null {
  const raw = overview.checks;
  if (!Array.isArray(raw)) return null;
  const out: CheckResult[] = [];
  for (const r of raw.slice(0, CHECKS_PER_RUNNER_MAX)) if (isResult.Check(r)) out.push(r);
  return out;
}

/** The version of the checks an overview says its agent was last handed; undefined: it does not say. */
export function checksVersionOf(overview: Record<string, unknown>): string | undefined {
  const v = overview.checks_version;
  return typeof v === 'string' && v.length <= 100 ? v : undefined;
}
