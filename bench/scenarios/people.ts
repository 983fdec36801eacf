import { join } from 'node:path';
import { request } from 'undici';
import { token, writeBoardConfig } from '../board-kit.js';
import { median, sleep } from '../stats.js';
import { best, type WrkResult, wrk } from '../wrk.js';
import { type BenchContext, count, launchBoard, scenarioDir } from './context.js';

/** The credentials measured, each against the board token in the same rounds. */
type Who = 'board' | 'unscoped' | 'scoped';

/**
 * People (DESIGN.md 15): what a browser session costs a reader beside the board token. One
 * board with configured machines, half of them `env=prod` by their board labels; GET
 * /api/board and GET /api/journal with the board token, with the session of an unscoped viewer
 * and with the session of a viewer scoped to `env=prod`, in alternating rounds.
 */
export async function peopleScenario(ctx: BenchContext): Promise<void> {
  const { options } = ctx;
  const machines = options.mode === 'quick' ? 1000 : 5000;
  const dir = scenarioDir(ctx, 'people');
  const boardToken = token();
  const dataDir = join(dir, 'data');
  const config = writeBoardConfig(dir, {
    board_token: boardToken,
    data_dir: dataDir,
    // The machines answer nowhere: the view at rest is what is read, not sweeps.
    sweep_interval: 600,
    history: false,
    machines: Array.from({ length: machines }, (_, i) => ({
      name: `m${String(i).padStart(5, '0')}`,
      url: 'http://127.0.0.1:9',
      key: `people-bench-key-${i}-0123456789`,
      labels: { env: i % 2 === 0 ? 'prod' : 'dev' },
    })),
  });
  const board = await launchBoard(ctx, config, 'people');
  try {
    const password = `bench-${token()}`;
    const sessions = {
      unscoped: await signUp(board.url, boardToken, 'una', null, password),
      scoped: await signUp(board.url, boardToken, 'pat', 'env=prod', password),
    };
    const headers: Record<Who, Record<string, string>> = {
      board: { authorization: `Bearer ${boardToken}` },
      unscoped: { cookie: `panoptes=${sessions.unscoped}` },
      scoped: { cookie: `panoptes=${sessions.scoped}` },
    };
    // The first sweep (every machine refused) over before anything is measured.
    await sleep(3000);
    const expected: Record<Who, number> = {
      board: machines,
      unscoped: machines,
      scoped: machines / 2,
    };
    for (const who of ['board', 'unscoped', 'scoped'] as const) {
      const listed = await listedCount(`${board.url}/api/board`, headers[who]);
      if (listed !== expected[who])
        ctx.problems.push(`people: ${who} was shown ${listed} machines, not ${expected[who]}`);
    }
    for (const path of ['/api/board', '/api/journal?limit=50']) {
      await rates(ctx, board.url, path, headers, machines);
    }
    await signInRoundTrip(ctx, board.url, password);
  } finally {
    await board.stop(10_000);
  }
}

/** Requests a second on `path` with each credential, best of the rounds, ÷ the board token's. */
async function rates(
  ctx: BenchContext,
  url: string,
  path: string,
  headers: Record<Who, Record<string, string>>,
  machines: number,
): Promise<void> {
  const { wrkSeconds: seconds } = ctx.options;
  // Ratios of a few percent on a shared machine: at least 4 alternating rounds, the best of each.
  const rounds = Math.max(ctx.options.wrkRounds, 4);
  const get = (who: Who, durationS: number) =>
    wrk({ url: `${url}${path}`, connections: 8, durationS, headers: headers[who] });
  const order: Who[] = ['board', 'unscoped', 'scoped'];
  for (const who of order) await get(who, 1); // warm-up, not measured
  const runs: Record<Who, WrkResult[]> = { board: [], unscoped: [], scoped: [] };
  for (let r = 0; r < rounds; r++) for (const who of order) runs[who].push(await get(who, seconds));
  const [base, unscoped, scoped] = order.map((who) => best(runs[who])) as [
    WrkResult,
    WrkResult,
    WrkResult,
  ];
  for (const [who, result] of [
    ['board', base],
    ['unscoped', unscoped],
    ['scoped', scoped],
  ] as const) {
    if (result.errors > 0) ctx.problems.push(`people: ${who} GET ${path}: ${result.errors} errors`);
  }
  const what = `GET ${path.split('?')[0]} requests/s, ${count(machines)} configured machines (wrk -c8, best of ${rounds} rounds of ${seconds} s alternating with the board token)`;
  for (const [label, result] of [
    [`a session of an unscoped viewer`, unscoped],
    [`a session of a viewer scoped to env=prod (half the machines)`, scoped],
  ] as const) {
    ctx.rows.push({
      what: `${what}: ${label}`,
      board: result.requestsPerSec,
      unit: 'req/s',
      baselineLabel: 'board token',
      baseline: base.requestsPerSec,
      ratio: result.requestsPerSec / base.requestsPerSec,
      goal: '≥ 0.95 × the board token',
      met: result.requestsPerSec >= 0.95 * base.requestsPerSec,
    });
  }
}

/**
 * A person made by the board token (POST /api/people) who sets a password through the one-time
 * link (POST /auth/signup/password), as a person does: the session cookie that sign-up gives.
 */
async function signUp(
  url: string,
  boardToken: string,
  name: string,
  selector: string | null,
  password: string,
): Promise<string> {
  const made = await request(`${url}/api/people`, {
    method: 'POST',
    headers: { authorization: `Bearer ${boardToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name, bindings: [{ role: 'viewer', selector }] }),
  });
  const person = (await made.body.json()) as { link?: string };
  if (made.statusCode !== 201 || person.link === undefined)
    throw new Error(`POST /api/people: ${made.statusCode}`);
  const signed = await request(`${url}/auth/signup/password`, {
    method: 'POST',
    headers: { origin: url, 'content-type': 'application/json' },
    body: JSON.stringify({ link: person.link, password }),
  });
  await signed.body.text();
  const secret = /panoptes=([A-Za-z0-9_-]+)/.exec(String(signed.headers['set-cookie']))?.[1];
  if (signed.statusCode !== 200 || secret === undefined)
    throw new Error(`POST /auth/signup/password: ${signed.statusCode}`);
  return secret;
}

/**
 * The sign-in round trip (no goal): POST /auth/password, one at a time, until a new session's
 * cookie is back; most of it is argon2id checking the password (19 MiB, 2 passes).
 */
async function signInRoundTrip(ctx: BenchContext, url: string, password: string): Promise<void> {
  const times: number[] = [];
  let cookie = '';
  const tries = ctx.options.mode === 'quick' ? 10 : 30;
  for (let i = 0; i <= tries; i++) {
    const started = performance.now();
    const r = await request(`${url}/auth/password`, {
      method: 'POST',
      headers: { origin: url, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'una', password }),
    });
    await r.body.text();
    if (r.statusCode !== 200 || !String(r.headers['set-cookie']).includes('panoptes=')) {
      ctx.problems.push(`people: POST /auth/password answered ${r.statusCode}`);
      return;
    }
    if (i > 0) times.push(performance.now() - started); // the first warms argon2 up
    cookie = /panoptes=([A-Za-z0-9_-]+)/.exec(String(r.headers['set-cookie']))?.[1] ?? cookie;
  }
  // Beside it, the round trip of a request that session makes (GET /api/me, the same way).
  const reads: number[] = [];
  for (let i = 0; i < tries; i++) {
    const started = performance.now();
    const r = await request(`${url}/api/me`, { headers: { cookie: `panoptes=${cookie}` } });
    await r.body.text();
    reads.push(performance.now() - started);
  }
  const signIn = median(times);
  const read = median(reads);
  ctx.rows.push({
    what: `sign-in round trip, POST /auth/password to a new session's cookie (median of ${tries}, one at a time; argon2id checks the password)`,
    board: signIn,
    unit: 'ms',
    baselineLabel: 'GET /api/me with a session',
    baseline: read,
    ratio: signIn / read,
    goal: '',
    met: null,
  });
}

/** How many machines one GET of the board lists. */
async function listedCount(url: string, headers: Record<string, string>): Promise<number> {
  const response = await request(url, { headers, headersTimeout: 30_000, bodyTimeout: 30_000 });
  const text = await response.body.text();
  if (response.statusCode !== 200) throw new Error(`GET ${url}: ${response.statusCode}`);
  return (JSON.parse(text) as { machines: unknown[] }).machines.length;
}
