import { cutMembers, takeJsonSource } from '../../shared/json-members.js';
import type { Report } from '../../shared/wire/report.js';

/** The members of a report that are not its overview (Board.report takes them out). */
export const REPORT_OWN_MEMBERS: readonly string[] = [
  'name',
  'location',
  'results',
  'key_proof',
  'key_proof_at',
  'interval_s',
];

/**
 * The overview's JSON: `report` without REPORT_OWN_MEMBERS (`overview`), as JSON.stringify
 * writes it. Cut from the report's own bytes when it is a parsed body as JSON.stringify would
 * have written it (cutMembers: no second serialisation per report), else serialised. Cut bytes
 * hold until the next cut: keep them (keepOverview copies) before another report is read.
 */
export function overviewText(report: Report, overview: Record<string, unknown>): string | Buffer {
  const source = takeJsonSource(report);
  return (
    (source === undefined ? null : cutMembers(source, REPORT_OWN_MEMBERS)) ??
    JSON.stringify(overview)
  );
}
