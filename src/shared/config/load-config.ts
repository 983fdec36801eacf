import { readFileSync } from 'node:fs';
import { parseDocument } from 'yaml';
import type { Static, TSchema } from '../typebox.js';
import { Value } from '../typebox.js';
import { HTTP_URL_PATTERN } from '../wire/common.js';
import { ConfigError, type ConfigProblem } from './config-error.js';
import { childPath, fieldPath } from './field-path.js';
import { type EnvReferenceSeen, substituteEnv } from './substitute-env.js';

/** An environment variable that, when set, replaces one top-level field of the file. */
export interface EnvOverride {
  env: string;
  /** Path of keys to the field, e.g. `['report', 'token']`. */
  field: readonly string[];
}

export interface LoadOptions {
  env?: NodeJS.ProcessEnv;
  overrides?: readonly EnvOverride[];
  /** Told of every `${NAME}` reference and the dotted field it is in (e.g. `report.token`). */
  onEnvReference?: EnvReferenceSeen;
}

/**
 * Reads a YAML config file, substitutes `${ENV}` references, applies env overrides and checks
 * the result against `schema`. Throws a ConfigError naming the file, every bad field and why.
 */
export function loadConfig<S extends TSchema>(
  file: string,
  schema: S,
  options: LoadOptions = {},
): Static<S> {
  const env = options.env ?? process.env;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new ConfigError(file, [{ field: '', problem: `cannot read the file (${code})` }]);
  }
  const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: true });
  if (doc.errors.length > 0) {
    throw new ConfigError(
      file,
      doc.errors.map((e) => ({ field: '', problem: `YAML: ${e.message.split('\n')[0] ?? ''}` })),
    );
  }
  const raw: unknown = doc.toJS() ?? {};
  const problems: ConfigProblem[] = [];
  const substituted = substituteEnv(raw, env, problems, '', options.onEnvReference);
  applyOverrides(substituted, env, options.overrides ?? []);
  if (problems.length === 0) problems.push(...schemaProblems(schema, substituted));
  if (problems.length > 0) throw new ConfigError(file, problems);
  return substituted as Static<S>;
}

function applyOverrides(
  value: unknown,
  env: NodeJS.ProcessEnv,
  overrides: readonly EnvOverride[],
): void {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return;
  for (const { env: name, field } of overrides) {
    const found = env[name];
    if (found === undefined || found === '') continue;
    let target = value as Record<string, unknown>;
    for (const key of field.slice(0, -1)) {
      const next = target[key];
      if (next === null || typeof next !== 'object' || Array.isArray(next)) {
        target = {};
        break;
      }
      target = next as Record<string, unknown>;
    }
    const last = field.at(-1);
    if (last !== undefined) target[last] = found;
  }
}

/** Lists schema violations as one problem per field, unknown keys included. */
export function schemaProblems(schema: TSchema, value: unknown): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const seen = new Set<string>();
  for (const error of Value.Errors(schema, value)) {
    let problem: ConfigProblem;
    if (error.keyword === 'additionalProperties') continue; // each key also comes as `boolean`
    if (error.keyword === 'boolean' && error.schemaPath.endsWith('/additionalProperties')) {
      const parent = schemaAt(schema, error.schemaPath.slice(1, -'/additionalProperties'.length));
      const isRecord =
        parent !== null && typeof parent === 'object' && 'patternProperties' in parent;
      problem = {
        field: fieldPath(error.instancePath),
        problem: isRecord ? 'is not a valid name' : 'unknown key',
      };
    } else if (error.keyword === 'required') {
      const missing = (error.params as { requiredProperties?: string[] }).requiredProperties ?? [];
      for (const key of missing) {
        pushOnce(problems, seen, {
          field: childPath(fieldPath(error.instancePath), key),
          problem: 'is required',
        });
      }
      continue;
    } else {
      problem = { field: fieldPath(error.instancePath), problem: describe(error) };
    }
    pushOnce(problems, seen, problem);
  }
  return problems;
}

function schemaAt(schema: unknown, pointer: string): unknown {
  let node = schema;
  for (const part of pointer.split('/').filter((p) => p !== '')) {
    if (node === null || typeof node !== 'object') return null;
    node = (node as Record<string, unknown>)[part];
  }
  return node;
}

function pushOnce(problems: ConfigProblem[], seen: Set<string>, p: ConfigProblem): void {
  const key = `${p.field}\u0000${p.problem}`;
  if (seen.has(key)) return;
  seen.add(key);
  problems.push(p);
}

function describe(error: { keyword: string; message: string; params: unknown }): string {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'minLength':
      return `must be at least ${String(params.limit)} characters long`;
    case 'pattern':
      // A URL's pattern says little to a reader: say what it must be instead.
      return params.pattern === HTTP_URL_PATTERN
        ? 'must be an absolute http:// or https:// URL'
        : `must match ${String(params.pattern)}`;
    case 'maxLength':
      return `must be at most ${String(params.limit)} characters long`;
    default:
      return error.message;
  }
}
