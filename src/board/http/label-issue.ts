import type { ValidationIssue } from '../../shared/http/pydantic.js';
import { labelsProblem } from '../../shared/labels.js';

/**
 * The 422 issue for a map of labels at `loc` that breaks the label rule (DESIGN section 14),
 * naming the first label wrong (`loc` + its key, its value as `input`); null: the map is good.
 */
export function labelIssue(given: unknown, loc: (string | number)[]): ValidationIssue | null {
  const problem = labelsProblem(given);
  if (problem === null) return null;
  const map = given as Record<string, unknown>;
  const key =
    typeof given === 'object' && given !== null
      ? Object.keys(map).find((k) => problem.startsWith(`label ${JSON.stringify(k)}`))
      : undefined;
  return {
    type: 'value_error',
    loc: key === undefined ? loc : [...loc, key],
    msg: `Value error, ${problem}`,
    input: key === undefined ? null : (map[key] ?? null),
  };
}
