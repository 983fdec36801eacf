import type { ConfigProblem } from '../../shared/config/config-error.js';
import { type Labels, labelsProblem, NO_LABELS, toLabels } from '../../shared/labels.js';
import { parseSelector, SelectorError } from '../../shared/selector.js';
import { Type } from '../../shared/typebox.js';
import type { GroupConfig } from '../domain/settings.js';

/** A group's name: one short line a person reads on the group bar. */
export const GROUP_NAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9 ._-]{0,62}$';

/** `labels:` of a machine in board.yaml (checked by the label rule in `readLabels`). */
export const LabelsConfig = Type.Record(Type.String(), Type.String());

/** `groups:` in board.yaml: saved selectors. */
export const GroupsConfig = Type.Array(
  Type.Object(
    {
      name: Type.String({ pattern: GROUP_NAME_PATTERN }),
      selector: Type.String({ maxLength: 4096 }),
    },
    { additionalProperties: false },
  ),
  { maxItems: 200 },
);

/** A machine's `labels:` as board labels; a label that breaks the rule is a problem at `field`. */
export function readLabels(
  raw: Record<string, string> | undefined,
  field: string,
  problems: ConfigProblem[],
): Labels {
  if (raw === undefined) return NO_LABELS;
  const problem = labelsProblem(raw);
  if (problem === null) return toLabels(raw);
  problems.push({ field, problem });
  return NO_LABELS;
}

/** `groups:` parsed once (a selector that does not parse is a problem naming its position). */
export function readGroups(
  raw: readonly { name: string; selector: string }[] | undefined,
  problems: ConfigProblem[],
): GroupConfig[] {
  const groups: GroupConfig[] = [];
  const names = new Set<string>();
  for (const [i, g] of (raw ?? []).entries()) {
    if (names.has(g.name)) {
      problems.push({ field: `groups[${i}].name`, problem: `duplicate group name ${g.name}` });
      continue;
    }
    names.add(g.name);
    try {
      groups.push({ name: g.name, selector: parseSelector(g.selector) });
    } catch (error) {
      if (!(error instanceof SelectorError)) throw error;
      problems.push({ field: `groups[${i}].selector`, problem: error.message });
    }
  }
  return groups;
}
