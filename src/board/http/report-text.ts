import type { ValidationIssue } from '../../shared/http/pydantic.js';
import { ONE_LINE_PATTERN } from '../../shared/wire/free-text.js';
import { Report } from '../../shared/wire/report.js';
import { labelIssue } from './label-issue.js';

const KNOWN = new Set(Object.keys(Report.properties));
const UNSAFE = new RegExp(ONE_LINE_PATTERN.replace('^[^', '[').replace(']*$', ']'), 'u');

/**
 * What a report's schema does not check, for both of the report's paths (the fast path and the
 * route): the free text of its members the schema does not know, then its `labels` (the
 * agent's, by the label rule: one issue naming the first label wrong).
 */
export function reportBodyIssues(report: Record<string, unknown>): ValidationIssue[] {
  const issues = extraTextIssues(report);
  if (issues.length > 0 || report.labels === undefined) return issues;
  const issue = labelIssue(report.labels, ['body', 'labels']);
  return issue === null ? [] : [issue];
}

/**
 * The schema checks the members of a report it knows; the board keeps the others too, so every
 * string in them (keys included) follows the same one-line rule. A report rarely has any.
 */
function extraTextIssues(report: Record<string, unknown>): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const key in report) {
    if (!KNOWN.has(key)) member(key, report[key], ['body'], issues);
  }
  return issues;
}

function member(
  key: string,
  value: unknown,
  loc: (string | number)[],
  issues: ValidationIssue[],
): void {
  if (UNSAFE.test(key)) issues.push(mismatch([...loc, key], key));
  walk(value, [...loc, key], issues);
}

function walk(value: unknown, loc: (string | number)[], issues: ValidationIssue[]): void {
  if (issues.length >= 20) return;
  if (typeof value === 'string') {
    if (UNSAFE.test(value)) issues.push(mismatch(loc, value));
  } else if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) walk(item, [...loc, i], issues);
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) member(key, item, loc, issues);
  }
}

function mismatch(loc: (string | number)[], input: string): ValidationIssue {
  return {
    type: 'string_pattern_mismatch',
    loc,
    msg: `String should match pattern '${ONE_LINE_PATTERN}'`,
    input,
    ctx: { pattern: ONE_LINE_PATTERN },
  };
}
