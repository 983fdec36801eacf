import type { Observation } from './observation.js';

/**
 * Gatus's condition language: `[STATUS] == 200`, `[RESPONSE_TIME] < 500`, `[BODY].status == UP`,
 * `[BODY] == pat(*ok*)`, `len([BODY].items) > 0`, `has([BODY].errors) == false`,
 * `[STATUS] == any(200, 204)`, `[CERTIFICATE_EXPIRATION] > 336h`, `[DNS_RCODE] == NOERROR`.
 * Parsed once (at config load on the board, when handed on an agent); evaluated the same everywhere.
 */
export interface Condition {
  /** The text as written. */
  readonly text: string;
  /** Null when it holds; else what failed, as Gatus shows it: `[STATUS] (503) == 200`. */
  check(observation: Observation): string | null;
}

/** A condition that does not parse; `position` is the 0-based character where it went wrong. */
export class ConditionError extends Error {
  constructor(
    readonly position: number,
    message: string,
  ) {
    super(message);
    this.name = 'ConditionError';
  }
}

/** Parses one condition (throws ConditionError naming the position). */
export function parseCondition(text: string): Condition {
  throw new ConditionError(0, `conditions are not built yet: ${text}`);
}

/** The first failing condition's description, or null when all hold. */
export function firstFailure(conditions: readonly Condition[], o: Observation): string | null {
  for (const condition of conditions) {
    const failed = condition.check(o);
    if (failed !== null) return failed;
  }
  return null;
}
