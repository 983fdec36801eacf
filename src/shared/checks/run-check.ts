import type { Condition } from './conditions.js';
import type { CheckResult, HandedCheck } from './wire.js';

/** Decides whether a resolved address may be probed (the board refuses private ones). */
export type AddressGuard = (address: string) => string | null;

export interface RunOptions {
  /** Asked for every address the target resolves to; a non-null answer fails the run with it. */
  guard?: AddressGuard;
  /** The clock (tests move it). */
  now?: () => Date;
}

/**
 * Runs one check once: its type's probe, then its conditions (parsed once by the caller), into
 * the result a runner reports. Never throws: a failure is `ok: false` with its detail.
 */
export async function runCheck(
  check: HandedCheck,
  conditions: readonly Condition[],
  options: RunOptions = {},
): Promise<CheckResult> {
  void check;
  void conditions;
  void options;
  throw new Error('runCheck is not built yet');
}
