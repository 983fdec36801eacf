import { LABELS_MAX, parseLabelArg } from '../../../../shared/labels.js';

/**
 * Labels typed on one line (`env=prod, site=fra gpu`: pairs separated by commas or spaces, a key
 * alone for an empty value), as a map; or the first problem, naming the label.
 */
export function parseLabelText(
  text: string,
): { labels: Record<string, string> } | { problem: string } {
  const labels: Record<string, string> = {};
  for (const part of text.split(/[\s,]+/)) {
    if (part === '') continue;
    try {
      const [key, value] = parseLabelArg(part);
      if (key in labels) return { problem: `label "${key}" is given twice` };
      labels[key] = value;
    } catch (error) {
      return { problem: error instanceof Error ? error.message : String(error) };
    }
  }
  if (Object.keys(labels).length > LABELS_MAX) return { problem: `at most ${LABELS_MAX} labels` };
  return { labels };
}
