import { createServer } from 'node:http';

/** The board's built code (dist/), loaded at run time: the bench is a project of its own. */
const built = (path: string): Promise<Record<string, unknown>> =>
  import(new URL(`../${path}`, import.meta.url).href);
const validation = await built('shared/http/validation-hook.js');
const parseJsonBody = validation.parseJsonBody as (bytes: Uint8Array) => unknown;
const isPlainBody = validation.isPlainBody as (bytes: Buffer) => boolean;
const checkBody = validation.checkBody as (
  schema: unknown,
  body: unknown,
  plain: boolean,
  issues: unknown[],
) => unknown;
const REPORT_SCHEMA = (await built('board/http/action-routes.js')).REPORT_SCHEMA;
const overviewText = (await built('board/domain/board.js')).overviewText as (
  report: Record<string, unknown>,
  overview: Record<string, unknown>,
) => unknown;
const prepareOverview = (await built('board/domain/metrics.js')).prepareOverview as (
  overview: Record<string, unknown>,
  json: unknown,
  latencyMs: null,
) => unknown;

/**
 * A bare node:http report server that does the first STEPS of the board's own work on each
 * body, no more (no Fastify, no registry, no sweeps): what each step costs a bare server
 * (bench/report-steps.ts; docs/performance-round3.md). Built code: run from dist/bench.
 *   1  the board's parser (parseJsonBody: FastAPI's decoding rules, then JSON.parse)
 *   2  + the route's compiled schema check (checkBody with REPORT_SCHEMA)
 *   3  + the overview taken out of the report (the rest of its members, as Board.report does)
 *   4  + the overview's bytes (overviewText: cut from the body, else serialised)
 *   5  + its metrics and sessions (prepareOverview)
 *   6  + kept per name (a Map), as the registry keeps the last of each machine
 */
const steps = Number(process.argv[2] ?? '6');
const ANSWER = '{"ok":true,"actions":[]}';
const kept = new Map<string, unknown>();

function work(bytes: Buffer): void {
  const parsed = parseJsonBody(bytes);
  if (steps < 2) return;
  const issues: unknown[] = [];
  checkBody(REPORT_SCHEMA, parsed, isPlainBody(bytes), issues);
  if (issues.length > 0) throw new Error('not a report');
  if (steps < 3) return;
  const report = parsed as Record<string, unknown>;
  const {
    name,
    location: _l,
    results: _r,
    key_proof: _p,
    key_proof_at: _a,
    interval_s: _i,
    ...overview
  } = report;
  if (steps < 4) return;
  const json = overviewText(report, overview);
  if (steps < 5) return;
  const prepared = prepareOverview(overview, json, null);
  if (steps < 6) return;
  kept.set(String(name), prepared);
}

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    let status = 200;
    try {
      work(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks));
    } catch {
      status = 422;
    }
    res.writeHead(status, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(ANSWER),
    });
    res.end(ANSWER);
  });
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  process.stdout.write(`listening at http://127.0.0.1:${port}\n`);
});
