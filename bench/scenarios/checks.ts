import { request } from 'undici';
import { token, writeBoardConfig } from '../board-kit.js';
import { CHECKS, checksConfig } from '../fleet/checks.js';
import { announcerReport } from '../fleet/overview.js';
import { type Program, startBare } from '../processes.js';
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
  script: string;
}

/**
 * Two boards with the same announced fleet, one with CHECKS checks every machine runs and
 * reports carrying 10 new results each, one with no checks and no results: report capacity in
 * alternating rounds, and bare node:http + JSON.parse with the same two sets of bodies.
 */
async function reportPath(ctx: BenchContext): Promise<void> {
  const { options } = ctx;
  const machines = options.labelsMachines;
  const registrationToken = token();
  const boardToken = token();
  const sides: Side[] = [];
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
                intervalS: 10,
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
    sides.push({
      board: withChecks,
      script: reportScript(ctx.tmp, machines, registrationToken, {
        checks: { version },
        variants: VARIANTS,
        file: 'checks-with.lua',
      }),
    });
    sides.push({
      board: without,
      script: reportScript(ctx.tmp, machines, registrationToken, {
        variants: VARIANTS,
        file: 'checks-without.lua',
      }),
    });
    for (const [i, side] of sides.entries()) {
      const extras = i === 0 ? { checks: { version } } : {};
      const run = await firstAnnounce(side.board.url, registrationToken, machines, 64, extras);
      if (run.failed > 0)
        ctx.problems.push(`checks: ${run.failed} of ${machines} first reports not 200`);
    }
    await capacity(ctx, machines, sides as [Side, Side]);
    await checkList(ctx, withChecks.url, boardToken);
  } finally {
    for (const side of sides) await side.board.stop(10_000);
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

async function capacity(ctx: BenchContext, machines: number, sides: [Side, Side]): Promise<void> {
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
      for (const [i, side] of sides.entries())
        board[i]?.push(await wrk(load(side.board.url, side.script)));
      for (const [i, side] of sides.entries())
        bare[i]?.push(await wrk(load(bareServer.url, side.script)));
    }
  } finally {
    await bareServer.stop();
  }
  const [boardWith, boardWithout] = board.map(best) as [WrkResult, WrkResult];
  const [bareWith, bareWithout] = bare.map(best) as [WrkResult, WrkResult];
  if (boardWith.non2xx + boardWithout.non2xx > 0)
    ctx.problems.push(
      `checks: reports answered other than 2xx: ${boardWith.non2xx} with results, ${boardWithout.non2xx} without`,
    );
  const ratio = boardWith.requestsPerSec / boardWithout.requestsPerSec;
  ctx.rows.push({
    what: `POST /api/report capacity, ${count(machines)} announced machines each running ${count(CHECKS)} checks, every report carrying 10 new results (wrk -c32 keep-alive, ${VARIANTS} overviews in turn, best of ${rounds} rounds alternating with a board without checks whose reports carry none)`,
    board: boardWith.requestsPerSec,
    unit: 'reports/s',
    baselineLabel: 'without checks',
    baseline: boardWithout.requestsPerSec,
    ratio,
    goal: '≥ 0.9 × without',
    met: ratio >= 0.9,
  });
  ctx.rows.push({
    what: `(no goal) the same bodies to bare node:http + JSON.parse, with results ÷ without (best of ${rounds}, in the same rounds): what the longer bodies cost any server`,
    board: bareWith.requestsPerSec,
    unit: 'reports/s',
    baselineLabel: 'without results',
    baseline: bareWithout.requestsPerSec,
    ratio: bareWith.requestsPerSec / bareWithout.requestsPerSec,
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
