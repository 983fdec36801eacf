import type { Labels } from '../../shared/labels.js';
import { escapeLabel } from './label-value.js';

/** The family that carries each machine's labels, as kube-state-metrics' kube_node_labels. */
export const LABELS_FAMILY = 'panoptes_machine_labels';

const HEAD =
  `# HELP ${LABELS_FAMILY} the machine's labels (1 per machine), each key as label_<key> ` +
  'with every character outside [a-zA-Z0-9_] made _\n' +
  `# TYPE ${LABELS_FAMILY} gauge\n`;

/** Each label map's text, made once per map (a machine's merged labels are one frozen map). */
const written = new WeakMap<Labels, string>();

/** A label key as a Prometheus label name: `label_` and the key, [^a-zA-Z0-9_] as `_`. */
export function promLabelName(key: string): string {
  return `label_${key.replace(/[^a-zA-Z0-9_]/g, '_')}`;
}

/**
 * `labels` as `,label_k="v"` pairs. Keys are sorted, so of keys that sanitize alike
 * (`a.b`, `a_b`, `a/b`) the first in order is written and the others dropped: a series may
 * not repeat a label name.
 */
export function labelPairs(labels: Labels): string {
  let text = written.get(labels);
  if (text !== undefined) return text;
  text = '';
  const seen = new Set<string>();
  for (const key of Object.keys(labels).sort()) {
    const name = promLabelName(key);
    if (seen.has(name)) continue;
    seen.add(name);
    text += `,${name}="${escapeLabel(labels[key] ?? '')}"`;
  }
  written.set(labels, text);
  return text;
}

/** Machine `name`'s sample: one per machine, labelled or not (as kube_node_labels). */
export function labelsRow(name: string, labels: Labels): string {
  return `${LABELS_FAMILY}{name="${escapeLabel(name)}"${labelPairs(labels)}} 1\n`;
}

/** The family's HELP and TYPE lines. */
export function labelsHead(): string {
  return HEAD;
}
