import type { ConfigProblem } from './config-error.js';
import { childPath } from './field-path.js';

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** Called for each `${NAME}` reference with the variable's name and the field it is in. */
export type EnvReferenceSeen = (name: string, field: string) => void;

/**
 * Replaces every `${NAME}` inside string values with the environment variable NAME.
 * A reference to an unset variable is a problem, reported with the field it is in.
 */
export function substituteEnv(
  value: unknown,
  env: NodeJS.ProcessEnv,
  problems: ConfigProblem[],
  field = '',
  seen: EnvReferenceSeen = () => undefined,
): unknown {
  if (typeof value === 'string') {
    return value.replace(REFERENCE, (_match, name: string) => {
      seen(name, field);
      const found = env[name];
      if (found === undefined) {
        problems.push({ field, problem: `environment variable ${name} is not set` });
        return '';
      }
      return found;
    });
  }
  if (Array.isArray(value)) {
    return value.map((item, i) => substituteEnv(item, env, problems, childPath(field, i), seen));
  }
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      out[key] = substituteEnv(item, env, problems, childPath(field, key), seen);
    }
    return out;
  }
  return value;
}
