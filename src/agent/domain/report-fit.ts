import type { HandedResult } from '../../shared/wire/action.js';
import type { ContainerView } from '../../shared/wire/machine-now.js';
import type { Overview } from '../../shared/wire/overview.js';
import type { Report } from '../../shared/wire/report.js';
import { keepMost, keepRank } from './containers.js';

/** A report stays below this many bytes of JSON, well under the board's limit for it. */
export const REPORT_MAX_BYTES = 48 * 1024;

interface Budget {
  sessions: number;
  text: number;
  results: number;
  output: number;
}

// Tried in order until the report fits: fewer and shorter sessions and results each time.
const BUDGETS: readonly Budget[] = [
  { sessions: 50, text: 1000, results: 20, output: 1000 },
  { sessions: 20, text: 300, results: 10, output: 500 },
  { sessions: 5, text: 100, results: 5, output: 200 },
  { sessions: 0, text: 0, results: 1, output: 0 },
];

/** A report and the ids of the results it carries. */
export interface FittedReport {
  report: Report;
  json: string;
  sentIds: string[];
  /** Good check results it carries when not all fit (the next report starts after them). */
  goodSent?: number;
}

/**
 * Builds the report an announcing agent sends: its overview plus `name`, `location` and the
 * oldest pending results, trimmed (latest sessions first, texts and outputs cut) to stay small.
 * Containers are cut before sessions are: the published ones and those that stopped or are
 * unhealthy are kept longest, and `containers_omitted` says how many were left out.
 */
export function fitReport(
  overview: Overview,
  location: string,
  pending: readonly HandedResult[],
  maxBytes = REPORT_MAX_BYTES,
  proof: { key_proof: string; key_proof_at?: string } | null = null,
  intervalS: number | null = null,
  goodFrom = 0,
): FittedReport {
  const within = (o: Overview) => fitWithin(o, location, pending, maxBytes, proof, intervalS);
  const fitted = within(overview);
  const checks = overview.checks ?? [];
  if (checks.length === 0 || Buffer.byteLength(fitted.json) <= maxBytes) return fitted;
  // Too many check results to carry: the failing ones first, then good ones taking turns from
  // `goodFrom` (each report goes on where the last stopped), as many as fit.
  const failing = checks.filter((c) => !c.ok);
  const good = checks.filter((c) => c.ok);
  const from = good.length === 0 ? 0 : goodFrom % good.length;
  const ranked = [...failing, ...good.slice(from), ...good.slice(0, from)];
  let lo = 0;
  let hi = ranked.length - 1;
  let best = within({ ...overview, checks: [] });
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const tried = within({ ...overview, checks: ranked.slice(0, mid) });
    if (Buffer.byteLength(tried.json) <= maxBytes) {
      best = { ...tried, goodSent: Math.max(0, mid - failing.length) };
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return best;
}

/** fitReport for the overview as it is: sessions, texts, results and containers cut. */
function fitWithin(
  overview: Overview,
  location: string,
  pending: readonly HandedResult[],
  maxBytes: number,
  proof: { key_proof: string; key_proof_at?: string } | null,
  intervalS: number | null,
): FittedReport {
  let fitted: FittedReport | null = null;
  const containers = overview.containers ?? [];
  const ranked = rankContainers(overview, containers);
  for (const budget of BUDGETS) {
    const results = pending.slice(0, budget.results).map((r) => trimResult(r, budget.output));
    const build = (kept: number): FittedReport => {
      const report: Report = {
        ...overview,
        sessions: overview.sessions
          .slice(0, budget.sessions)
          .map((s) => ({ ...s, text: s.text.slice(0, budget.text) })),
        name: overview.name,
        location,
      };
      if (kept < containers.length) {
        report.containers = ranked(kept);
        report.containers_omitted = (overview.containers_omitted ?? 0) + containers.length - kept;
      }
      if (results.length > 0) report.results = results;
      if (proof !== null) Object.assign(report, proof);
      if (intervalS !== null) report.interval_s = intervalS;
      const json = JSON.stringify(report);
      return { report, json, sentIds: results.map((r) => r.id) };
    };
    const fits = (f: FittedReport) => Buffer.byteLength(f.json) <= maxBytes;
    fitted = build(containers.length);
    if (fits(fitted)) return fitted;
    if (containers.length === 0) continue;
    // The most containers that fit with this budget (the size grows with each one kept).
    let lo = 0;
    let hi = containers.length - 1;
    let best: FittedReport | null = null;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const tried = build(mid);
      if (fits(tried)) {
        best = tried;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    if (best !== null) return best;
    fitted = build(0);
  }
  if (fitted === null) throw new Error('no report budget');
  return fitted;
}

/**
 * `n` → the `n` containers most worth sending: published ones, then those not running or
 * unhealthy, then running ones, each in the overview's order.
 */
function rankContainers(
  overview: Overview,
  containers: readonly ContainerView[],
): (n: number) => ContainerView[] {
  const published = overview.services.flatMap((s) =>
    s.kind === 'container' && s.container !== undefined ? [s.container] : [],
  );
  const rank = (c: ContainerView) =>
    keepRank({ ...c, unhealthy: c.health === 'unhealthy' }, published);
  return (n) => keepMost(containers, rank, n);
}

/** A result with its `output` (if any) cut to its last `maxChars` characters. */
export function trimResult(result: HandedResult, maxChars: number): HandedResult {
  const body = result.body;
  if (body === null || typeof body !== 'object' || !('output' in body)) return result;
  const output = (body as { output: unknown }).output;
  if (typeof output !== 'string' || output.length <= maxChars) return result;
  const kept = maxChars === 0 ? '' : output.slice(-maxChars);
  return { ...result, body: { ...body, output: kept } };
}
