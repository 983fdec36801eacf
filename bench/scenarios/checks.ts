import { request } from 'undici';
import { token, writeBoardConfig } from '../board-kit.js';
import { CHECKS, checksConfig, RESULTS_THAT_FIT } from '../fleet/checks.js';
import { announcerReport } from '../fleet/overview.js';
import type { Program } from '../processes.js';
import { sleep } from '../stats.js';
import { best, reportScript, type WrkResult, wrk } from '../wrk.js';
import { checksAgents } from './checks-agents.js';
import { type BenchContext, count, launchBoard, scenarioDir } from './context.js';
import { firstAnnounce } from './report-flood.js';

/** Overviews taking turns in the report floods: prime to the fleet's size. */
const VARIANTS = 7;

/**
 * Checks (DESIGN.md 16): what runners' results cost the board's report path, then real agents
 * running the checks (checks-agents.ts: their RSS and CPU, a bare fetch loop, the time from a
 * target going down to its notification).
 */
export async function checksScenario(ctx: BenchContext): Promise<void> {
  let failed: unknown = null;
  await reportPath(ctx).catch((error: unknown) => {
    failed = error ?? new Error('the report path failed');
  });
  await checksAgents(ctx);
  if (failed !== null) throw failed;
}

interface Side {
  board: Program;
  /** The flood's reports (with the checks' version on the board with checks). */
  script: string;
  /** The flood's reports each carrying 10 new results (the stress round). */
  stress?: string;
}

/** The scenario's runners: agents each running every check, beyond the flood's names. */
const RUNNERS = 10;
/** Their report interval, s: each reports its CHECKS results this often. */
const RUNNER_INTERVAL_S = 10;

/**
 * Two boards with the same announced fleet, one with CHECKS checks and RUNNERS runners each
 * running all of them (reporting CHECKS new results every RUNNER_INTERVAL_S, staggered), one
 * with no checks whose runners report none: the fleet's report capacity on each while the
 * runners report, in alternating rounds; then a stress round where every machine of the flood
 * runs checks and each report carries 10 new results.
 */
async function reportPath(ctx: BenchContext): Promise<void> {
  const { options } = ctx;
  const machines = options.labelsMachines;
  const registrationToken = token();
  const boardToken = token();
  const sides: Side[] = [];
  const runnerIndex = (r: number) => machines + r;
  try {
    const boards: Program[] = [];
    for (const on of [true, false]) {
      const label = `checks-${on ? 'with' : 'without'}`;
      const dir = writeBoardConfig(scenarioDir(ctx, label), {
        board_token: boardToken,
        registration_token: registrationToken,
        max_announced: machines + 1000,
        stale_after: 3600,
        ...(on
          ? {
              checks: checksConfig(CHECKS, 'http://127.0.0.1:9/', {
                intervalS: RUNNER_INTERVAL_S,
                selector: () => '!retired',
              }),
            }
          : {}),
      });
      boards.push(await launchBoard(ctx, dir, label));
    }
    const [withChecks, without] = boards as [Program, Program];
    const version = await handedVersion(withChecks.url, registrationToken);
    ctx.log(`checks: the board hands every machine ${CHECKS} checks, version ${version}`);
    const script = (file: string, checks?: { version: string; results: boolean }) =>
      reportScript(ctx.tmp, machines, registrationToken, {
        ...(checks === undefined ? {} : { checks }),
        variants: VARIANTS,
        file,
      });
    sides.push({
      board: withChecks,
      script: script('checks-with.lua', { version, results: false }),
      stress: script('checks-stress.lua', { version, results: true }),
    });
    sides.push({ board: without, script: script('checks-without.lua') });
    for (const [i, side] of sides.entries()) {
      const extras = i === 0 ? { checks: { version, results: 0 } } : {};
      const run = await firstAnnounce(side.board.url, registrationToken, machines, 64, extras);
      if (run.failed > 0)
        ctx.problems.push(`checks: ${run.failed} of ${machines} first reports not 200`);
    }
    const runners =
      (on: boolean, url: string) =>
      async <T>(during: () => Promise<T>): Promise<T> => {
        const run = await runnerReports(
          url,
          registrationToken,
          on ? version : null,
          runnerIndex,
          during,
        );
        if (run.failed > 0)
          ctx.problems.push(`checks: ${run.failed} of ${run.sent} runner reports not 200`);
        return run.result as T;
      };
    await capacity(ctx, machines, sides as [Side, Side], runners);
    await checkList(ctx, withChecks.url, boardToken);
  } finally {
    for (const side of sides) await side.board.stop(10_000);
  }
}

/**
 * The runners' reports while `during` runs: one every RUNNER_INTERVAL_S / RUNNERS s, each
 * runner's CHECKS results new each time (none where `version` is null: a board without checks).
 */
async function runnerReports<T>(
  url: string,
  registrationToken: string,
  version: string | null,
  index: (r: number) => number,
  during?: () => Promise<T>,
): Promise<{ result: T | undefined; sent: number; failed: number }> {
  let stop = false;
  let sent = 0;
  let failed = 0;
  // As an agent running every check sends them: what fits in a report, in turns.
  const from = Array.from({ length: RUNNERS }, () => 0);
  const send = async (r: number) => {
    const start = from[r] ?? 0;
    from[r] = start + RESULTS_THAT_FIT;
    const extras =
      version === null ? {} : { checks: { version, results: RESULTS_THAT_FIT, from: start } };
    const response = await request(`${url}/api/report`, {
      method: 'POST',
      headers: { authorization: `Bearer ${registrationToken}`, 'content-type': 'application/json' },
      body: announcerReport(index(r), 1, Date.now(), extras),
    });
    await response.body.text();
    sent += 1;
    if (response.statusCode !== 200) failed += 1;
  };
  const loop = (async () => {
    for (let r = 0; !stop; r = (r + 1) % RUNNERS) {
      await send(r);
      await sleep((RUNNER_INTERVAL_S * 1000) / RUNNERS);
    }
  })();
  try {
    const result = during === undefined ? undefined : await during();
    return { result, sent, failed };
  } finally {
    stop = true;
    await loop;
  }
}

/** The version a machine is handed by a board whose checks every machine runs. */
async function handedVersion(url: string, registrationToken: string): Promise<string> {
  const body = announcerReport(0, 1, Date.now(), { checks: { version: '' } });
  const response = await request(`${url}/api/report`, {
    method: 'POST',
    headers: { authorization: `Bearer ${registrationToken}`, 'content-type': 'application/json' },
    body,
  });
  const answer = (await response.body.json()) as {
    checks?: { version: string; checks: unknown[] };
  };
  if (response.statusCode !== 200 || answer.checks === undefined)
    throw new Error(`the board handed no checks (${response.statusCode})`);
  if (answer.checks.checks.length !== CHECKS)
    throw new Error(`the board handed ${answer.checks.checks.length} checks, not ${CHECKS}`);
  return answer.checks.version;
}

async function capacity(
  ctx: BenchContext,
  machines: number,
  sides: [Side, Side],
  runners: (on: boolean, url: string) => <T>(during: () => Promise<T>) => Promise<T>,
): Promise<void> {
  const { wrkRounds: rounds, wrkSeconds: seconds } = ctx.options;
  const load = (url: string, script: string) => ({
    url,
    connections: 32,
    durationS: seconds,
    script,
  });
  const board: [WrkResult[], WrkResult[]] = [[], []];
  const stress: WrkResult[] = [];
  for (let r = 0; r < rounds; r++) {
    for (const [i, side] of sides.entries())
      board[i]?.push(
        await runners(i === 0, side.board.url)(() => wrk(load(side.board.url, side.script))),
      );
  }
  const [withChecks] = sides;
  if (withChecks.stress !== undefined)
    for (let r = 0; r < rounds; r++)
      stress.push(await wrk(load(withChecks.board.url, withChecks.stress)));
  const [boardWith, boardWithout] = board.map(best) as [WrkResult, WrkResult];
  const stressed = best(stress);
  if (boardWith.non2xx + boardWithout.non2xx + stressed.non2xx > 0)
    ctx.problems.push(
      `checks: reports answered other than 2xx: ${boardWith.non2xx} with checks, ${boardWithout.non2xx} without, ${stressed.non2xx} in the stress round`,
    );
  const ratio = boardWith.requestsPerSec / boardWithout.requestsPerSec;
  ctx.rows.push({
    what: `POST /api/report capacity, ${count(machines)} announced machines, while ${RUNNERS} runners of all ${count(CHECKS)} checks report every ${RUNNER_INTERVAL_S} s, each report carrying the ${RESULTS_THAT_FIT} new results that fit in an agent's 48 KiB (${count((RUNNERS * RESULTS_THAT_FIT) / RUNNER_INTERVAL_S)} results/s; wrk -c32 keep-alive, ${VARIANTS} overviews in turn, best of ${rounds} rounds alternating with a board without checks whose runners report none)`,
    board: boardWith.requestsPerSec,
    unit: 'reports/s',
    baselineLabel: 'without checks',
    baseline: boardWithout.requestsPerSec,
    ratio,
    goal: '≥ 0.9 × without',
    met: ratio >= 0.9,
  });
  ctx.rows.push({
    what: `(no goal) stress: every one of the ${count(machines)} machines a runner, each report carrying 10 new results (~${count(stressed.requestsPerSec * 10)} results/s, far past a real fleet's), best of ${rounds}: what a result costs the report path`,
    board: stressed.requestsPerSec,
    unit: 'reports/s',
    baselineLabel: 'without checks',
    baseline: boardWithout.requestsPerSec,
    ratio: stressed.requestsPerSec / boardWithout.requestsPerSec,
    goal: '',
    met: null,
  });
}

/** --check: every check is listed, up, with runners: the results were taken, not just parsed. */
async function checkList(ctx: BenchContext, url: string, boardToken: string): Promise<void> {
  const response = await request(`${url}/api/checks`, {
    headers: { authorization: `Bearer ${boardToken}` },
    headersTimeout: 30_000,
    bodyTimeout: 30_000,
  });
  const list = (await response.body.json()) as { state: string; runners: unknown[] }[];
  const up = list.filter((c) => c.state === 'up' && c.runners.length > 0).length;
  if (list.length !== CHECKS || up !== CHECKS)
    ctx.problems.push(
      `checks: GET /api/checks lists ${list.length} checks, ${up} up with runners (expected ${CHECKS})`,
    );
}
