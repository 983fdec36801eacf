/**
 * Labels: `key=value` pairs on a machine (DESIGN section 14), the same rule on the board and the
 * agent. A key is 1–63 characters of lower-case letters, digits and `._/-`, starting with a
 * letter or digit; a value is empty or 1–63 characters of letters, digits and `._-`, starting
 * with a letter or digit. `name` is every machine's own name and cannot be set.
 */
export type Labels = Readonly<Record<string, string>>;

export const LABEL_KEY_PATTERN = '^[a-z0-9][a-z0-9._/-]{0,62}$';
export const LABEL_VALUE_PATTERN = '^(?:[A-Za-z0-9][A-Za-z0-9._-]{0,62})?$';
export const LABELS_MAX = 32;
/** The label every machine has: its name (matched by selectors, never stored). */
export const NAME_LABEL = 'name';

const KEY = new RegExp(LABEL_KEY_PATTERN);
const VALUE = new RegExp(LABEL_VALUE_PATTERN);

/** No labels: one frozen map shared by every machine without them. */
export const NO_LABELS: Labels = Object.freeze(Object.create(null) as Record<string, string>);

/** Why `key` cannot be a label's key, or null. */
export function labelKeyProblem(key: string): string | null {
  if (key === NAME_LABEL) return `label "name": every machine has it (its name); it cannot be set`;
  if (!KEY.test(key))
    return `label ${quote(key)}: a key is 1-63 of a-z 0-9 . _ / -, starting with a letter or digit`;
  return null;
}

/** Why `value` cannot be the value of label `key`, or null. */
export function labelValueProblem(key: string, value: unknown): string | null {
  if (typeof value !== 'string') return `label ${quote(key)}: the value must be a string`;
  if (!VALUE.test(value))
    return `label ${quote(key)}: a value is empty or 1-63 of A-Z a-z 0-9 . _ -, starting with a letter or digit`;
  return null;
}

/** Why `labels` is not a map of labels, naming the first label that is wrong; null: it is. */
export function labelsProblem(labels: unknown): string | null {
  if (typeof labels !== 'object' || labels === null || Array.isArray(labels))
    return 'labels must be an object of "key": "value"';
  const keys = Object.keys(labels);
  if (keys.length > LABELS_MAX) return `at most ${LABELS_MAX} labels, not ${keys.length}`;
  for (const key of keys) {
    const problem =
      labelKeyProblem(key) ?? labelValueProblem(key, (labels as Record<string, unknown>)[key]);
    if (problem !== null) return problem;
  }
  return null;
}

/** The prototype of kept labels: none of Object's (a label may be called `constructor`). */
const LABELS_PROTO = Object.freeze(Object.create(null) as object);
function LabelMap(): void {}
LabelMap.prototype = LABELS_PROTO;

/**
 * Labels from `keys` (in order) and their `values`, frozen; none: NO_LABELS. Made by a
 * constructor whose prototype has nothing: V8 keeps an Object.create(null) map as a
 * dictionary, ~560 bytes for 8 labels against ~100 for this one, whose properties are fast.
 */
export function labelsInOrder(keys: readonly string[], values: readonly string[]): Labels {
  if (keys.length === 0) return NO_LABELS;
  const out = new (LabelMap as unknown as new () => Record<string, string>)();
  for (let i = 0; i < keys.length; i++) out[keys[i] as string] = values[i] as string;
  return Object.freeze(out);
}

/** `labels` as a frozen map with its keys in order (so equal maps print alike); none: NO_LABELS. */
export function toLabels(labels: Readonly<Record<string, string>>): Labels {
  const keys = Object.keys(labels).sort();
  return labelsInOrder(
    keys,
    keys.map((k) => labels[k] as string),
  );
}

/** The labels `board` and `agent` give together: the board's value wins on the same key. */
export function mergeLabels(board: Labels, agent: Labels): Labels {
  if (Object.keys(agent).length === 0) return board;
  if (Object.keys(board).length === 0) return agent;
  return toLabels({ ...agent, ...board });
}

/** Whether two label maps hold the same pairs. */
export function sameLabels(a: Labels, b: Labels): boolean {
  if (a === b) return true;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((k) => b[k] === a[k]);
}

/**
 * One `key=value` (or `key`, an empty value) as given to a command line's `--label`; throws
 * an Error naming what is wrong.
 */
export function parseLabelArg(text: string): [string, string] {
  const at = text.indexOf('=');
  const key = at < 0 ? text : text.slice(0, at);
  const value = at < 0 ? '' : text.slice(at + 1);
  const problem = labelKeyProblem(key) ?? labelValueProblem(key, value);
  if (problem !== null) throw new Error(problem);
  return [key, value];
}

function quote(text: string): string {
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text);
}
