import { request } from 'undici';
import { token } from '../board-kit.js';
import { machineLabels, SELECTOR, selectedCount } from '../fleet/labels.js';
import { startBare } from '../processes.js';
import { median, sleep } from '../stats.js';
import { best, type WrkResult, wrk } from '../wrk.js';
import { type BenchContext, count, RssSampler } from './context.js';
import { labelsSweep } from './labels-sweep.js';
import { type PairedSide, startPairedBoards } from './paired-boards.js';

/** Overviews taking turns in the report floods: prime to the fleet's size (as machines-now). */
const VARIANTS = 7;

/** One of the two boards: its machines' overviews with 8 labels each (`on`), or with none. */
type Side = PairedSide;

/**
 * Labels (DESIGN.md 14): what 8 labels a machine cost the board where no one selects by them
 * (reports, memory, sweeps: labels-sweep.ts), and what a selector saves a reader.
 */
export async function labelsScenario(ctx: BenchContext): Promise<void> {
  // The two halves share nothing: one failing still leaves the other's rows.
  let failed: unknown = null;
  await reportSide(ctx).catch((error: unknown) => {
    failed = error ?? new Error('the report side failed');
  });
  await labelsSweep(ctx);
  if (failed !== null) throw failed;
}

/**
 * Two boards at once, each with the same announced fleet, one whose machines carry 8 labels and
 * one whose machines carry none: RSS at rest, GET /api/board?selector= beside the whole view on
 * the labelled board, and the report capacity of both, in alternating rounds.
 */
async function reportSide(ctx: BenchContext): Promise<void> {
  const { options } = ctx;
  const machines = options.labelsMachines;
  const quick = options.mode === 'quick';
  const registrationToken = token();
  const boardToken = token();
  const auth = { authorization: `Bearer ${boardToken}` };
  const sides: Side[] = [];
  try {
    await startPairedBoards(
      ctx,
      {
        scenario: 'labels',
        what: 'labels',
        part: 'labels',
        machines,
        variants: VARIANTS,
        registrationToken,
        boardToken,
        // No machine goes down for want of reports while the boards are measured at rest.
        config: { stale_after: 3600 },
      },
      sides,
    );
    const [withLabels, without] = sides as [Side, Side];
    // Each board's view read once: every machine's record made, as on any board that is read.
    for (const side of sides) await listed(ctx, `${side.board.url}/api/board`, auth, machines);
    // The boards save the new machines and collect what the first announcements left before
    // anything is measured: longer than the reports scenario's 15 s, as the memory row compares
    // two boards a few MB apart and V8 gives an idle heap back only after several seconds idle.
    await sleep(quick ? 3000 : 30_000);

    // Both boards at rest over the same stretch, sampled together: the median of each.
    const restMs = quick ? 3000 : 10_000;
    const samplers = sides.map((s) => new RssSampler(s.board.pid, 250));
    for (const s of samplers) s.phase('rest');
    await sleep(restMs);
    const [rssWith, rssWithout] = samplers.map((s) => {
      s.sample();
      s.stop();
      return median(s.phaseSamples.get('rest') ?? []);
    }) as [number, number];
    const empty = ctx.emptyBoardRssMb;
    const perWith = ((rssWith - empty) / machines) * 1000;
    const perWithout = ((rssWithout - empty) / machines) * 1000;
    ctx.rows.push({
      what: `board RSS at rest per 1,000 machines over the empty board (${empty.toFixed(0)} MB), ${count(machines)} announced with 8 labels each (median over ${restMs / 1000} s, both boards sampled together: ${rssWith.toFixed(0)} MB, without ${rssWithout.toFixed(0)} MB)`,
      board: perWith,
      unit: 'MB',
      baselineLabel: 'without labels',
      baseline: perWithout,
      ratio: perWith / perWithout,
      goal: '≤ 1.1 × without',
      met: perWith <= 1.1 * perWithout,
    });

    await selectedGet(ctx, withLabels, boardToken, machines);
    await reportCapacity(ctx, machines, withLabels, without);
    // --check: after the flood every machine still shows its own labels (or none).
    for (const side of sides) await checkLabels(ctx, side, auth, machines);
  } finally {
    for (const side of sides) await side.board.stop(options.cpuProfDir === null ? 10_000 : 60_000);
  }
}

/**
 * GET /api/board?selector=site=fra (a tenth of the fleet) beside the whole GET /api/board, on
 * the same board at rest, in alternating rounds after one unmeasured round of each.
 */
async function selectedGet(
  ctx: BenchContext,
  side: Side,
  boardToken: string,
  machines: number,
): Promise<void> {
  const { wrkRounds: rounds, wrkSeconds: seconds } = ctx.options;
  const auth = { authorization: `Bearer ${boardToken}` };
  const wholeUrl = `${side.board.url}/api/board`;
  const selectedUrl = `${wholeUrl}?selector=${encodeURIComponent(SELECTOR)}`;
  const expected = selectedCount(machines);
  const before = await Promise.all([
    listed(ctx, selectedUrl, auth, expected),
    listed(ctx, wholeUrl, auth, machines),
  ]);
  const get = (url: string, durationS: number) =>
    wrk({ url, connections: 2, durationS, headers: auth });
  // Warm-up: the first requests of each kind (compiled code, buffers) are not measured.
  await get(selectedUrl, 1);
  await get(wholeUrl, 1);
  const runs: [WrkResult[], WrkResult[]] = [[], []];
  for (let r = 0; r < rounds; r++) {
    runs[0].push(await get(selectedUrl, seconds));
    runs[1].push(await get(wholeUrl, seconds));
  }
  // The same board state throughout: the same answers after the rounds as before them.
  const after = await Promise.all([
    listed(ctx, selectedUrl, auth, expected),
    listed(ctx, wholeUrl, auth, machines),
  ]);
  if (before[0].records !== after[0].records || before[1].records !== after[1].records)
    ctx.problems.push('labels: the board changed while GET ?selector= was measured');
  const [selected, whole] = runs.map(best) as [WrkResult, WrkResult];
  if (selected.errors + whole.errors > 0)
    ctx.problems.push(`labels: GET errors: ${selected.errors} selected, ${whole.errors} whole`);
  const [sel, all] = before;
  ctx.rows.push({
    what: `GET /api/board?selector=${SELECTOR} p99, ${count(machines)} announced with 8 labels (${count(sel.machines)} selected, ${mb(sel.bytes)}; wrk -c2, best of ${rounds} rounds of ${seconds} s alternating with the whole view, ${count(all.machines)} machines, ${mb(all.bytes)}; p50 ${selected.p50.toFixed(1)} ms, whole ${whole.p50.toFixed(1)} ms)`,
    board: selected.p99,
    unit: 'ms',
    baselineLabel: 'GET /api/board (whole)',
    baseline: whole.p99,
    ratio: selected.p99 / whole.p99,
    goal: '≤ 0.3 × the whole view',
    met: selected.p99 <= 0.3 * whole.p99,
  });
}

/**
 * One GET of `url`: how many machines it lists (checked against `expected`), its size, and its
 * records as text (the view's head, the time of the last tick, moves at rest; they do not).
 */
async function listed(
  ctx: BenchContext,
  url: string,
  headers: Record<string, string>,
  expected: number,
): Promise<{ machines: number; bytes: number; records: string }> {
  const response = await request(url, { headers, headersTimeout: 30_000, bodyTimeout: 30_000 });
  const bytes = Buffer.from(await response.body.arrayBuffer());
  if (response.statusCode !== 200) throw new Error(`GET ${url}: ${response.statusCode}`);
  const view = JSON.parse(bytes.toString('utf8')) as { machines: unknown[] };
  if (view.machines.length !== expected)
    ctx.problems.push(`labels: GET ${url} listed ${view.machines.length}, not ${expected}`);
  return {
    machines: view.machines.length,
    bytes: bytes.length,
    records: JSON.stringify(view.machines),
  };
}

/**
 * Report capacity (wrk -c32, keep-alive) of the two boards in alternating rounds, and of a bare
 * node:http + JSON.parse taking the same two sets of bodies in the same rounds.
 */
async function reportCapacity(
  ctx: BenchContext,
  machines: number,
  withLabels: Side,
  without: Side,
): Promise<void> {
  const { wrkRounds: rounds, wrkSeconds: seconds } = ctx.options;
  const load = (url: string, script: string) => ({
    url,
    connections: 32,
    durationS: seconds,
    script,
  });
  const board: [WrkResult[], WrkResult[]] = [[], []];
  const bare: [WrkResult[], WrkResult[]] = [[], []];
  const bareServer = await startBare(['--reports']);
  try {
    for (let r = 0; r < rounds; r++) {
      board[0].push(await wrk(load(withLabels.board.url, withLabels.script)));
      board[1].push(await wrk(load(without.board.url, without.script)));
      bare[0].push(await wrk(load(bareServer.url, withLabels.script)));
      bare[1].push(await wrk(load(bareServer.url, without.script)));
    }
  } finally {
    await bareServer.stop();
  }
  const [boardWith, boardWithout] = board.map(best) as [WrkResult, WrkResult];
  const [bareWith, bareWithout] = bare.map(best) as [WrkResult, WrkResult];
  if (boardWith.non2xx + boardWithout.non2xx > 0)
    ctx.problems.push(
      `labels: reports answered other than 2xx: ${boardWith.non2xx} with labels, ${boardWithout.non2xx} without`,
    );
  const ratio = boardWith.requestsPerSec / boardWithout.requestsPerSec;
  const bareRatio = bareWith.requestsPerSec / bareWithout.requestsPerSec;
  ctx.rows.push({
    what: `POST /api/report capacity, ${count(machines)} machines with 8 labels each, unchanged from report to report (wrk -c32 keep-alive, ${VARIANTS} overviews in turn, best of ${rounds} rounds alternating with the board without them)`,
    board: boardWith.requestsPerSec,
    unit: 'reports/s',
    baselineLabel: 'without labels',
    baseline: boardWithout.requestsPerSec,
    ratio,
    // The labels make each body ~6 % longer, which costs any server: judged against bare's.
    goal: `≥ 0.95 × bare's ratio (${(0.95 * bareRatio).toFixed(2)})`,
    met: ratio >= 0.95 * bareRatio,
  });
  ctx.rows.push({
    what: `(no goal) the same bodies to bare node:http + JSON.parse, with labels ÷ without (best of ${rounds}, in the same rounds)`,
    board: bareWith.requestsPerSec,
    unit: 'reports/s',
    baselineLabel: 'without labels',
    baseline: bareWithout.requestsPerSec,
    ratio: bareRatio,
    goal: '',
    met: null,
  });
}

/** --check: every machine of the view shows the labels it reports (none on the board without). */
async function checkLabels(
  ctx: BenchContext,
  side: Side,
  headers: Record<string, string>,
  machines: number,
): Promise<void> {
  const response = await request(`${side.board.url}/api/board`, {
    headers,
    headersTimeout: 30_000,
    bodyTimeout: 30_000,
  });
  const view = (await response.body.json()) as {
    machines: { name: string; labels: Record<string, string> }[];
  };
  let wrong = 0;
  for (const m of view.machines) {
    const index = Number(m.name.slice(1)) - 1;
    const expected = side.on ? machineLabels(index) : {};
    if (JSON.stringify(m.labels) !== JSON.stringify(expected)) wrong += 1;
  }
  if (view.machines.length !== machines || wrong > 0)
    ctx.problems.push(
      `labels: the view ${side.on ? 'with' : 'without'} labels lists ${view.machines.length} of ${machines} machines, ${wrong} with other labels than reported`,
    );
}

function mb(bytes: number): string {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}
