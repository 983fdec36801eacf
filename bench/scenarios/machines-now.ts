import { boardView, token } from '../board-kit.js';
import { startBare } from '../processes.js';
import { sleep } from '../stats.js';
import { best, type WrkResult, wrk } from '../wrk.js';
import { type BenchContext, count, RssSampler } from './context.js';
import { agentSide } from './machines-now-agent.js';
import { type PairedSide, startPairedBoards } from './paired-boards.js';

/**
 * How many overviews take turns in the report floods: prime to the fleet's size, so that each
 * machine's next report is another one (containers, processes and rates all moved).
 */
const VARIANTS = 7;

/** What the fields of DESIGN.md 11 hold in each simulated overview (bench/fleet/machine-now.ts). */
const EXPECTED = { containers: 8, processes: 20, interfaces: 3, temps: 6, smart: 2 };

/** One of the two boards: its overviews with DESIGN.md 11's fields (`on`), or without them. */
type Side = PairedSide;

/**
 * DESIGN.md 11's fields (containers, processes, network, temperatures, disk health): what they
 * cost the board, and what reading containers costs the agent (machines-now-agent.ts).
 */
export async function machinesNowScenario(ctx: BenchContext): Promise<void> {
  // The two sides share nothing: one failing still leaves the other's rows.
  let failed: unknown = null;
  await boardSide(ctx).catch((error: unknown) => {
    failed = error ?? new Error('the board side failed');
  });
  await agentSide(ctx);
  if (failed !== null) throw failed;
}

/**
 * Two boards at once, each with the same announced fleet, one whose machines report the new
 * fields and one whose machines do not: RSS at rest, GET /api/board and the report capacity,
 * each in rounds alternating between the two, the best round of each side.
 */
async function boardSide(ctx: BenchContext): Promise<void> {
  const { options } = ctx;
  const machines = options.machinesNowMachines;
  const quick = options.mode === 'quick';
  const registrationToken = token();
  const boardToken = token();
  const auth = { authorization: `Bearer ${boardToken}` };
  const sides: Side[] = [];
  try {
    await startPairedBoards(
      ctx,
      {
        scenario: 'machines-now',
        what: 'the new fields',
        part: 'machineNow',
        machines,
        variants: VARIANTS,
        registrationToken,
        boardToken,
      },
      sides,
    );
    const [withNow, without] = sides as [Side, Side];

    // As the reports scenario: the boards save the new machines' identities and collect what
    // the first announcements left before anything is measured.
    await sleep(quick ? 3000 : 15_000);

    // Both boards at rest over the same stretch: the same disturbances fall on both.
    const restMs = quick ? 3000 : 6000;
    const samplers = sides.map((s) => new RssSampler(s.board.pid, 250));
    await sleep(restMs);
    const [rssWith, rssWithout] = samplers.map((s) => {
      s.sample();
      s.stop();
      return s.peakMb;
    }) as [number, number];
    ctx.rows.push({
      what: `board RSS at rest, ${count(machines)} announced with the new fields (peak over ${restMs / 1000} s, both boards sampled together; empty board ${ctx.emptyBoardRssMb.toFixed(0)} MB)`,
      board: rssWith,
      unit: 'MB',
      baselineLabel: 'without them',
      baseline: rssWithout,
      ratio: rssWith / rssWithout,
      goal: '≤ 1.3 × without',
      met: rssWith <= 1.3 * rssWithout,
    });

    const sizes: number[] = [];
    for (const side of sides) sizes.push((await checkView(ctx, side, boardToken, machines)).length);
    const [bytesWith, bytesWithout] = sizes as [number, number];
    ctx.rows.push({
      what: `(no goal) GET /api/board size, ${count(machines)} announced with the new fields (${kb(bytesWith / machines)} a machine, without ${kb(bytesWithout / machines)})`,
      board: bytesWith / 1e6,
      unit: 'MB',
      baselineLabel: 'without them',
      baseline: bytesWithout / 1e6,
      ratio: bytesWith / bytesWithout,
      goal: '',
      met: null,
    });

    // GET /api/board, no report coming in, alternating between the two boards.
    const { wrkRounds: rounds, wrkSeconds: seconds } = options;
    const gets: [WrkResult[], WrkResult[]] = [[], []];
    for (let r = 0; r < rounds; r++)
      for (const [k, side] of sides.entries())
        gets[k]?.push(
          await wrk({
            url: `${side.board.url}/api/board`,
            connections: 2,
            durationS: seconds,
            headers: auth,
          }),
        );
    const [getWith, getWithout] = gets.map(best) as [WrkResult, WrkResult];
    if (getWith.errors + getWithout.errors > 0)
      ctx.problems.push(
        `machines-now: GET /api/board errors: ${getWith.errors} with the new fields, ${getWithout.errors} without`,
      );
    ctx.rows.push({
      what: `GET /api/board p99, ${count(machines)} announced with the new fields (${mb(bytesWith)}; wrk -c2, best of ${rounds} rounds of ${seconds} s alternating with the board without them, ${mb(bytesWithout)}; p50 ${getWith.p50.toFixed(1)} ms, without ${getWithout.p50.toFixed(1)} ms)`,
      board: getWith.p99,
      unit: 'ms',
      baselineLabel: 'without them',
      baseline: getWithout.p99,
      ratio: getWith.p99 / getWithout.p99,
      // The view carries each machine's overview whole (the spec's record): it can only be as
      // quick per byte, not as quick.
      goal: `≤ the size ratio (${(bytesWith / bytesWithout).toFixed(2)})`,
      met: getWith.p99 / getWithout.p99 <= bytesWith / bytesWithout,
    });

    await reportCapacity(ctx, machines, withNow, without);
    // --check: the flood's reports, with their fields, are what the views now hold.
    for (const side of sides) await checkView(ctx, side, boardToken, machines);
  } finally {
    for (const side of sides) await side.board.stop(options.cpuProfDir === null ? 10_000 : 60_000);
  }
}

/**
 * Report capacity (wrk -c32, keep-alive) of the two boards in alternating rounds, and of a bare
 * node:http + JSON.parse taking the same two sets of bodies in the same rounds: how much of the
 * difference the bodies' size alone makes.
 */
async function reportCapacity(
  ctx: BenchContext,
  machines: number,
  withNow: Side,
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
      board[0].push(await wrk(load(withNow.board.url, withNow.script)));
      board[1].push(await wrk(load(without.board.url, without.script)));
      bare[0].push(await wrk(load(bareServer.url, withNow.script)));
      bare[1].push(await wrk(load(bareServer.url, without.script)));
    }
  } finally {
    await bareServer.stop();
  }
  const [boardWith, boardWithout] = board.map(best) as [WrkResult, WrkResult];
  const [bareWith, bareWithout] = bare.map(best) as [WrkResult, WrkResult];
  if (boardWith.non2xx + boardWithout.non2xx > 0)
    ctx.problems.push(
      `machines-now: reports answered other than 2xx: ${boardWith.non2xx} with the new fields, ${boardWithout.non2xx} without`,
    );
  const bodies = `${VARIANTS} overviews in turn`;
  ctx.rows.push({
    what: `POST /api/report capacity, ${count(machines)} machines reporting the new fields (wrk -c32 keep-alive, ${bodies}, best of ${rounds} rounds alternating with the board without them)`,
    board: boardWith.requestsPerSec,
    unit: 'reports/s',
    baselineLabel: 'without them',
    baseline: boardWithout.requestsPerSec,
    ratio: boardWith.requestsPerSec / boardWithout.requestsPerSec,
    // Reading 4× bigger bodies costs any server: judged against what it costs the bare one.
    goal: `≥ 0.9 × bare's ratio (${(0.9 * (bareWith.requestsPerSec / bareWithout.requestsPerSec)).toFixed(2)})`,
    met:
      boardWith.requestsPerSec / boardWithout.requestsPerSec >=
      0.9 * (bareWith.requestsPerSec / bareWithout.requestsPerSec),
  });
  ctx.rows.push({
    what: `the same bodies to bare node:http + JSON.parse, with the new fields ÷ without (best of ${rounds}, in the same rounds)`,
    board: bareWith.requestsPerSec,
    unit: 'reports/s',
    baselineLabel: 'without them',
    baseline: bareWithout.requestsPerSec,
    ratio: bareWith.requestsPerSec / bareWithout.requestsPerSec,
    goal: '',
    met: null,
  });
}

interface NowOverview {
  containers?: unknown[];
  processes?: unknown[];
  net?: { interfaces?: unknown[] };
  temps?: unknown[];
  smart?: unknown[];
}

/**
 * --check: the board lists every announced machine, each overview carrying the new fields as
 * reported (or none of them, on the board without). Returns the view's bytes.
 */
async function checkView(
  ctx: BenchContext,
  side: Side,
  boardToken: string,
  machines: number,
): Promise<Buffer> {
  const { bytes, view } = await boardView(side.board.url, boardToken);
  const listed = view.machines as unknown as { name: string; overview: NowOverview | null }[];
  const wrong = new Map<string, number>();
  const problem = (text: string) => wrong.set(text, (wrong.get(text) ?? 0) + 1);
  if (listed.length !== machines) problem(`${listed.length} machines listed, not ${machines}`);
  for (const m of listed) {
    const o = m.overview;
    if (o === null) problem('a machine without an overview');
    else if (!side.on) {
      if (o.containers !== undefined || o.processes !== undefined || o.net !== undefined)
        problem('a machine shows fields it did not report');
    } else {
      const got = {
        containers: o.containers?.length,
        processes: o.processes?.length,
        interfaces: o.net?.interfaces?.length,
        temps: o.temps?.length,
        smart: o.smart?.length,
      };
      for (const [field, n] of Object.entries(EXPECTED))
        if (got[field as keyof typeof got] !== n)
          problem(`${field}: ${got[field as keyof typeof got] ?? 'absent'}, not ${n}`);
    }
  }
  if (wrong.size > 0)
    ctx.problems.push(
      `machines-now: the view ${side.on ? 'with' : 'without'} the new fields: ${[...wrong].map(([t, n]) => `${n} × ${t}`).join('; ')}`,
    );
  return bytes;
}

function kb(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KB`;
}

function mb(bytes: number): string {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}
