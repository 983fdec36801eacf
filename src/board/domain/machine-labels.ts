import {
  LABELS_MAX,
  type Labels,
  labelKeyProblem,
  labelsInOrder,
  labelValueProblem,
  mergeLabels,
  NO_LABELS,
  sameLabels,
  toLabels,
} from '../../shared/labels.js';

/** What a machine holds of its labels (machine.ts's Machine is one). */
export interface Labeled {
  labels: Labels;
  boardLabels: Labels;
  agentLabels: Labels;
}

/**
 * Gives `m` these board and agent labels (each absent: kept as it is); true if its labels
 * changed (its record must be redone).
 */
export function relabel(m: Labeled, board?: Labels, agent?: Labels): boolean {
  const nextBoard = board === undefined || sameLabels(board, m.boardLabels) ? m.boardLabels : board;
  const nextAgent = agent === undefined || sameLabels(agent, m.agentLabels) ? m.agentLabels : agent;
  if (nextBoard === m.boardLabels && nextAgent === m.agentLabels) return false;
  // Labels that crossed from the poller's thread arrive as plain objects: kept frozen, in order.
  m.boardLabels = nextBoard === m.boardLabels ? nextBoard : toLabels(nextBoard);
  m.agentLabels = nextAgent === m.agentLabels ? nextAgent : toLabels(nextAgent);
  m.labels = mergeLabels(m.boardLabels, m.agentLabels);
  return true;
}

/**
 * The labels an overview carries (`labels`, a map), each pair that breaks the label rule left
 * out (a poll cannot be refused; a report with one is, before it gets here); none: NO_LABELS.
 */
export function labelsOf(overview: Record<string, unknown>): Labels {
  const given = overview.labels;
  if (typeof given !== 'object' || given === null || Array.isArray(given)) return NO_LABELS;
  const keys: string[] = [];
  const values: string[] = [];
  let ordered = true;
  for (const key in given) {
    if (keys.length === LABELS_MAX) break;
    if (!Object.hasOwn(given, key)) continue;
    const value = (given as Record<string, unknown>)[key];
    if (!goodKey(key) || !goodValue(key, value)) continue;
    if (keys.length > 0 && (keys[keys.length - 1] as string) >= key) ordered = false;
    keys.push(key);
    values.push(value);
  }
  if (!ordered) return toLabels(Object.fromEntries(keys.map((k, i) => [k, values[i] as string])));
  return labelsInOrder(keys, values);
}

/**
 * Keys and values already found to keep the label rule: a fleet repeats a few of them in every
 * overview, and a set costs less than the pattern. Bounded: past it, the pattern alone.
 */
const GOOD_KEYS = new Set<string>();
const GOOD_VALUES = new Set<string>();
const GOOD_MAX = 4096;

function goodKey(key: string): boolean {
  if (GOOD_KEYS.has(key)) return true;
  if (labelKeyProblem(key) !== null) return false;
  if (GOOD_KEYS.size < GOOD_MAX) GOOD_KEYS.add(key);
  return true;
}

function goodValue(key: string, value: unknown): value is string {
  if (typeof value !== 'string') return false;
  if (GOOD_VALUES.has(value)) return true;
  if (labelValueProblem(key, value) !== null) return false;
  if (GOOD_VALUES.size < GOOD_MAX) GOOD_VALUES.add(value);
  return true;
}
