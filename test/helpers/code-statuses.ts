import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { errors } from '../../src/shared/http/errors.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * A piece of code that chooses an operation's answer: the registration of its route (by its
 * path as the file writes it: `'/api/machines/:name'`, or the constant's name; and its method
 * when two routes share the path), or a function, class method or arrow constant by its name.
 */
export type Place = { file: string; route: string; method?: string } | { file: string; fn: string };

/** The status each error constructor of the catalogue makes (errors.ts). */
const CATALOGUE: ReadonlyMap<string, number> = new Map(
  Object.entries(errors).map(([name, make]) => [
    name,
    (make as (arg: never) => { statusCode: number })([] as never).statusCode,
  ]),
);

/**
 * Calls that end in a store write the board must make before it answers: refused with 503
 * (StoreUnavailable) while the store cannot write (GuardedTables: queue.add, identities.save,
 * silences.save, enrollments.put, acks.put, push.keys, push.subscribe, push.unsubscribe). A new
 * such call in a route's code is to be added here.
 */
const STORE_WRITES =
  /\b(?:persistIdentities\?\.\(|queue\.add\(|enrollments\??\.(?:enroll|revoke)\(|saveOrUndo\(|store\.put\(|table\.(?:subscribe|unsubscribe)\(|this\.vapid\()/;

/** The text without comments (block comments, and lines that are only a comment). */
function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
}

/** The index just past the bracket that closes the one at `open`. */
function closing(text: string, open: number): number {
  const pair: Record<string, string> = { '(': ')', '{': '}' };
  const want = pair[text[open] ?? ''];
  if (want === undefined) throw new Error(`no bracket at ${open}`);
  let depth = 0;
  for (let i = open; i < text.length; i += 1) {
    if (text[i] === text[open]) depth += 1;
    else if (text[i] === want) {
      depth -= 1;
      if (depth === 0) return i + 1;
    }
  }
  throw new Error('unbalanced brackets');
}

/** The text of one place: the whole `app.method(path, …)` call, or the function's definition. */
export function placeText(place: Place): string {
  const text = withoutComments(readFileSync(`${ROOT}/${place.file}`, 'utf8'));
  if ('route' in place) {
    const quoted = place.route.startsWith('/') ? `'${place.route}'` : place.route;
    const method = place.method ?? '\\w+';
    const at = new RegExp(
      `app\\.${method}\\(\\s*${quoted.replace(/[/.*+?^${}()|[\]\\]/g, '\\$&')}\\s*,`,
    ).exec(text);
    if (at === null) throw new Error(`${place.file}: no route ${place.route}`);
    return text.slice(at.index, closing(text, text.indexOf('(', at.index)));
  }
  // A function, a class method (indented once: a call inside a method is indented further),
  // or an arrow function in a constant.
  const definition = new RegExp(
    `^(?:(?:export\\s+)?(?:async\\s+)?function\\s+${place.fn}\\s*\\(|  (?:(?:private|async)\\s+)*${place.fn}\\s*\\(|\\s*const\\s+${place.fn}\\s*=)`,
    'm',
  ).exec(text);
  if (definition === null) throw new Error(`${place.file}: no function ${place.fn}`);
  const start = definition.index;
  if (definition[0].includes('const')) {
    // An arrow function: to its body's closing brace, or to the end of its statement.
    const arrow = text.indexOf('=>', start);
    const body = text.slice(arrow + 2).search(/\S/) + arrow + 2;
    if (text[body] === '{') return text.slice(start, closing(text, body));
    return text.slice(start, text.indexOf(';\n', body) + 1);
  }
  const params = text.indexOf('(', start + definition[0].length - 1);
  // The body's brace ends its line; a return type's braces (`Promise<{ … }>`) do not follow a space.
  const brace = text.indexOf(' {\n', closing(text, params)) + 1;
  return text.slice(start, closing(text, brace));
}

/** The error statuses a piece of code names: status literals and the catalogue's constructors. */
export function statusesIn(text: string): number[] {
  const found = new Set<number>();
  for (const m of text.matchAll(/\b([45]\d\d)\b/g)) found.add(Number(m[1]));
  for (const m of text.matchAll(/\berrors\.(\w+)\(/g)) {
    const status = CATALOGUE.get(m[1] ?? '');
    if (status === undefined) throw new Error(`errors.${m[1]} is not in the catalogue`);
    found.add(status);
  }
  if (/\bnew StoreUnavailable\(/.test(text) || STORE_WRITES.test(text)) found.add(503);
  return [...found].sort((a, b) => a - b);
}
