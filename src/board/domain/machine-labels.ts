import {
  LABELS_MAX,
  type Labels,
  labelKeyProblem,
  labelValueProblem,
  mergeLabels,
  NO_LABELS,
  sameLabels,
  toLabels,
} from '../../shared/labels.js';
import type { Machine } from './machine.js';

/**
 * Gives `m` these board and agent labels (each absent: kept as it is); true if its labels
 * changed (its record must be redone).
 */
export function relabel(m: Machine, board?: Labels, agent?: Labels): boolean {
  const nextBoard = board === undefined || sameLabels(board, m.boardLabels) ? m.boardLabels : board;
  const nextAgent = agent === undefined || sameLabels(agent, m.agentLabels) ? m.agentLabels : agent;
  if (nextBoard === m.boardLabels && nextAgent === m.agentLabels) return false;
  // Labels that crossed from the poller's thread arrive as plain objects: kept frozen, in order.
  m.boardLabels = nextBoard === m.boardLabels ? nextBoard : keptLabels(nextBoard);
  m.agentLabels = nextAgent === m.agentLabels ? nextAgent : keptLabels(nextAgent);
  const merged = mergeLabels(m.boardLabels, m.agentLabels);
  m.labels = merged === m.boardLabels || merged === m.agentLabels ? merged : keptLabels(merged);
  return true;
}

/** The prototype of kept labels: none of Object's (a label may be called `constructor`). */
const KEPT_PROTO = Object.freeze(Object.create(null) as object);
function KeptLabels(): void {}
KeptLabels.prototype = KEPT_PROTO;

/**
 * `labels` (keys in order, frozen) as a machine keeps them: V8 holds an object made by
 * Object.create(null) as a dictionary, ~560 bytes for 8 labels against ~100 for this one,
 * whose properties are fast and whose prototype has none.
 */
export function keptLabels(labels: Labels): Labels {
  const keys = Object.keys(labels).sort();
  if (keys.length === 0) return NO_LABELS;
  const out = new (KeptLabels as unknown as new () => Record<string, string>)();
  for (const key of keys) out[key] = labels[key] as string;
  return Object.freeze(out);
}

/**
 * The labels an overview carries (`labels`, a map), each pair that breaks the label rule left
 * out (a poll cannot be refused; a report with one is, before it gets here); none: NO_LABELS.
 */
export function labelsOf(overview: Record<string, unknown>): Labels {
  const given = overview.labels;
  if (typeof given !== 'object' || given === null || Array.isArray(given)) return NO_LABELS;
  const kept: Record<string, string> = {};
  let count = 0;
  for (const [key, value] of Object.entries(given)) {
    if (count === LABELS_MAX) break;
    if (labelKeyProblem(key) !== null || labelValueProblem(key, value) !== null) continue;
    kept[key] = value as string;
    count += 1;
  }
  return toLabels(kept);
}
