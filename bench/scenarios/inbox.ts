import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { stringify } from 'yaml';
import { launchBrowser } from '../../harness/browser.js';
import { ROOT, startAgent } from '../../harness/processes.js';
import { PushService } from '../../harness/push-service.js';
import { seeded } from '../../harness/seeded.js';
import { boardView, token, writeBoardConfig } from '../board-kit.js';
import { inboxOpenCount } from '../fleet/overview.js';
import type { Program } from '../processes.js';
import { quantile, sleep } from '../stats.js';
import { best, type WrkResult, wrk } from '../wrk.js';
import { type BenchContext, count, launchBoard, scenarioDir } from './context.js';
import {
  ackPath,
  checkAck,
  checkListing,
  DEFAULT_LIMIT,
  fetchBytes,
  getJson,
  kb,
} from './inbox-kit.js';
import { firstAnnounce } from './report-flood.js';

/** The sweep interval of the board the bells are timed on: a bell waits for the next poll. */
const SWEEP_S = 0.5;
/**
 * The page reads the inbox again at most this often on live changes (INBOX's THROTTLE_MS in
 * src/board/ui/src/state/inbox.ts): a bell is rung only once this long has passed since the
 * page's last read, so that the figure is not the throttle's.
 */
const PAGE_THROTTLE_MS = 2000;
/**
 * While sessions are open the page also reads the inbox this often (RECHECK_MS, same file): a
 * bell that reaches the page within PAGE_THROTTLE_MS after such a read waits for the rest of it.
 */
const PAGE_RECHECK_S = 30;
const SUBJECT = 'mailto:bench@example.org';
const AGENT = 'desk';

/**
 * The attention inbox: GET /api/sessions?state=open on a board of 10,000 announcing machines
 * with 5 sessions each (2,000 with --quick) beside GET /api/board on the same board; then, on a
 * board polling one real agent, a bell rung on the agent timed to its Web Push at a local push
 * service and to its inbox row painted in Chromium.
 */
export async function inboxScenario(ctx: BenchContext): Promise<void> {
  await listing(ctx);
  await bells(ctx);
}

/** GET /api/sessions?state=open beside GET /api/board, alternating rounds on one board. */
async function listing(ctx: BenchContext): Promise<void> {
  const { options } = ctx;
  const machines = options.inboxMachines;
  const perMachine = options.inboxSessions;
  const all = machines * perMachine;
  const open = inboxOpenCount(machines, perMachine);
  const registrationToken = token();
  const boardToken = token();
  const auth = { authorization: `Bearer ${boardToken}` };
  const dir = writeBoardConfig(scenarioDir(ctx, 'inbox-list'), {
    board_token: boardToken,
    registration_token: registrationToken,
    max_announced: machines + 1000,
  });
  let board: Program | null = null;
  try {
    board = await launchBoard(ctx, dir, 'inbox-list');
    const url = board.url;
    const total = async (state: 'open' | 'all') => {
      const page = await getJson<{ total: number }>(
        `${url}/api/sessions?state=${state}&limit=1`,
        auth,
      );
      return page.total;
    };
    // Every machine reports once, as fast as the board answers (the announcers' reports, in a
    // closed loop: an open-loop rate the board cannot keep up with would skip some).
    const sessions = { perMachine, newestAt: Date.now() - 60_000 };
    const run = await firstAnnounce(url, registrationToken, machines, 64, { sessions });
    const listed = await total('all');
    ctx.log(
      `inbox: ${count(run.ok)} machines announced in ${(run.elapsedMs / 1000).toFixed(1)} s (${run.failed} failed); ${count(listed)} of ${count(all)} sessions listed`,
    );
    if (listed !== all)
      ctx.problems.push(
        `inbox: ${count(listed)} of ${count(all)} sessions listed after the reports`,
      );
    // As the reports scenario: the board saves the new machines' identities and collects what
    // the first announcements left before its GETs are measured.
    await sleep(options.mode === 'quick' ? 3000 : 15_000);

    const first = await fetchBytes(`${url}/api/sessions?state=open`, auth);
    const view = await fetchBytes(`${url}/api/board`, auth);
    checkListing(ctx, JSON.parse(first.toString('utf8')), open);
    const { wrkRounds: rounds, wrkSeconds: seconds } = options;
    const listRounds: WrkResult[] = [];
    const viewRounds: WrkResult[] = [];
    for (let i = 0; i < rounds; i++) {
      const load = (path: string) => ({
        url: `${url}${path}`,
        connections: 2,
        durationS: seconds,
        headers: auth,
      });
      listRounds.push(await wrk(load('/api/sessions?state=open')));
      viewRounds.push(await wrk(load('/api/board')));
    }
    const list = best(listRounds);
    const whole = best(viewRounds);
    if (list.errors + whole.errors > 0)
      ctx.problems.push(
        `inbox: ${list.errors} GET /api/sessions and ${whole.errors} GET /api/board errors`,
      );
    ctx.log(
      `inbox: GET /api/sessions?state=open p50 ${list.p50} ms, p99 ${list.p99} ms (${list.requestsPerSec}/s); GET /api/board p50 ${whole.p50} ms, p99 ${whole.p99} ms (${whole.requestsPerSec}/s)`,
    );
    ctx.rows.push({
      what:
        `GET /api/sessions?state=open p99, ${count(machines)} announced × ${perMachine} sessions ` +
        `(${count(open)} open, the first ${count(Math.min(open, DEFAULT_LIMIT))} listed, ${kb(first.length)}; ` +
        `wrk -c2, best of ${rounds} rounds of ${seconds} s alternating with GET /api/board on the same board; ` +
        `p50 ${list.p50.toFixed(1)} ms, GET /api/board ${whole.p50.toFixed(1)} ms)`,
      board: list.p99,
      unit: 'ms',
      baselineLabel: `GET /api/board p99 (${(view.length / 1e6).toFixed(1)} MB)`,
      baseline: whole.p99,
      ratio: list.p99 / whole.p99,
      goal: '',
      met: null,
    });
    await checkAck(ctx, url, auth, open);
  } finally {
    await board?.stop();
  }
}

/** A bell rung on a real agent, timed to its Web Push and to its row painted in Chromium. */
async function bells(ctx: BenchContext): Promise<void> {
  const { options } = ctx;
  const dir = scenarioDir(ctx, 'inbox-bells');
  mkdirSync(dir, { recursive: true });
  const agentToken = token();
  const key = token();
  const boardToken = token();
  const auth = { authorization: `Bearer ${boardToken}` };
  const agentFile = join(dir, 'agent.yaml');
  writeFileSync(
    agentFile,
    stringify({
      name: AGENT,
      token: agentToken,
      board_key: key,
      data_dir: join(dir, 'agent-data'),
    }),
  );
  const service = await new PushService(SUBJECT).start();
  let agent: Program | null = null;
  let board: Program | null = null;
  try {
    agent = await startAgent(agentFile, { env: { PANOPTES_LOG_LEVEL: 'info' }, timeoutMs: 30_000 });
    const config = writeBoardConfig(join(dir, 'board'), {
      board_token: boardToken,
      sweep_interval: SWEEP_S,
      history: false,
      machines: [{ name: AGENT, url: agent.url, key }],
      push: { subject: SUBJECT, allow_http_endpoints: true, allow_private_endpoints: true },
      notify: {
        channels: [{ name: 'phone', url: 'webpush://' }],
        rules: [{ events: ['bell'], channels: ['phone'] }],
      },
    });
    board = await launchBoard(ctx, config, 'inbox-bells');
    const boardUrl = board.url;
    const agentUrl = agent.url;
    const phone = service.subscriber();
    const subscribed = await request(`${boardUrl}/api/push/subscriptions`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify(phone.json),
    });
    const subscribedText = await subscribed.body.text();
    if (subscribed.statusCode !== 200)
      throw new Error(
        `POST /api/push/subscriptions answered ${subscribed.statusCode}: ${subscribedText}`,
      );
    await agentUp(boardUrl, boardToken);

    /** POST /api/bell on the agent; resolves once it answered 200. */
    const ring = async (session: string) => {
      const r = await request(`${agentUrl}/api/bell`, {
        method: 'POST',
        headers: { authorization: `Bearer ${agentToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ session, why: 'attention', text: 'Allow Bash: npm test?' }),
      });
      const text = await r.body.text();
      if (r.statusCode !== 200) throw new Error(`POST /api/bell answered ${r.statusCode}: ${text}`);
    };
    const ack = async (session: string) => {
      const r = await request(`${boardUrl}${ackPath(AGENT, session)}`, {
        method: 'POST',
        headers: auth,
      });
      await r.body.text();
      if (r.statusCode !== 200)
        ctx.problems.push(`inbox: ack of ${session} answered ${r.statusCode}`);
    };
    /** A bell's Web Push: ms from the agent's 200 to the push service's decrypted arrival. */
    const pushed = async (session: string): Promise<number> => {
      const arrival = service.next(
        (d) => d.subscriber === phone.id && d.payload.session === session,
        20_000,
      );
      arrival.catch(() => undefined);
      await ring(session);
      const rung = performance.now();
      const delivery = await arrival;
      if (delivery.payload.machine !== AGENT)
        ctx.problems.push(`inbox: a push about ${String(delivery.payload.machine)}, not ${AGENT}`);
      await ack(session);
      return delivery.receivedMs - rung;
    };
    // Rung at a random point of the sweep: the wait for the next poll is spread over the interval.
    const random = seeded(11);
    const sweepMs = SWEEP_S * 1000;

    // The first message makes the board's VAPID key and opens its connection: not timed.
    await pushed('warm-up');
    const pushMs: number[] = [];
    for (let i = 0; i < options.pushBells; i++) {
      await sleep(random() * sweepMs);
      pushMs.push(await pushed(`bench-push-${i + 1}`));
    }
    if (service.problems.length > 0)
      ctx.problems.push(
        `inbox: the push service refused: ${service.problems.slice(0, 3).join('; ')}`,
      );
    const p50 = quantile(pushMs, 0.5);
    const p99 = quantile(pushMs, 0.99);
    ctx.log(`inbox: bell → push, ms: ${pushMs.map((ms) => ms.toFixed(0)).join(' ')}`);
    ctx.rows.push({
      what:
        `bell rung on a configured agent → Web Push decrypted at a local push service, p99 of ${pushMs.length} ` +
        `(the board polls every ${SWEEP_S} s: includes the wait for its next poll, rung at a random point of the sweep; ` +
        `then the bell rule, the message encrypted and signed, the POST, the VAPID check and decryption; p50 ${p50.toFixed(0)} ms)`,
      board: p99,
      unit: 'ms',
      baselineLabel: 'sweep_interval',
      baseline: sweepMs,
      ratio: p99 / sweepMs,
      goal: '',
      met: null,
    });

    const paint = await painted(ctx, boardUrl, boardToken, ring, () => random() * sweepMs);
    const paintMs = paint.times;
    const paint50 = quantile(paintMs, 0.5);
    const paint99 = quantile(paintMs, 0.99);
    ctx.log(
      `inbox: bell → row painted, ms: ${paintMs.map((ms) => ms.toFixed(0)).join(' ')}` +
        `; held by the page's own re-read: ${paint.held.length === 0 ? 'none' : paint.held.map((i) => `#${i + 1}`).join(' ')}`,
    );
    ctx.rows.push({
      what:
        `bell rung on a configured agent → its inbox row painted in Chromium, p99 of ${paintMs.length} ` +
        `(includes the wait for the board's next poll, every ${SWEEP_S} s; then the live message, the page's ` +
        `GET /api/sessions and the paint; rung ≥ ${PAGE_THROTTLE_MS / 1000} s after the page read the inbox for the bell before, ` +
        `as it reads it at most that often; ${paint.held.length} held up to ${PAGE_THROTTLE_MS / 1000} s more by the page's ` +
        `own re-read every ${PAGE_RECHECK_S} s; p50 ${paint50.toFixed(0)} ms)`,
      board: paint99,
      unit: 'ms',
      baselineLabel: 'sweep_interval',
      baseline: sweepMs,
      ratio: paint99 / sweepMs,
      goal: '',
      met: null,
    });
  } finally {
    await board?.stop();
    await agent?.stop();
    await service.stop();
  }
}

/**
 * The board page open in Chromium, bells rung one by one: ms from the agent's 200 to the row of
 * the bell's session painted (found in the page by a MutationObserver, then a frame and a task,
 * so once the browser has painted, timed with the page's clock: the same wall clock). `held`:
 * the bells whose row came from a read that another read of the page's own (its periodic
 * re-read) had started less than PAGE_THROTTLE_MS before, so that the page's throttle held it.
 */
async function painted(
  ctx: BenchContext,
  boardUrl: string,
  boardToken: string,
  ring: (session: string) => Promise<void>,
  jitterMs: () => number,
): Promise<{ times: number[]; held: number[] }> {
  if (!existsSync(join(ROOT, 'dist/ui/index.html')))
    throw new Error('the board UI is not built (dist/ui/): run `npm run build` first');
  const browser = await launchBrowser();
  const times: number[] = [];
  const held: number[] = [];
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${boardUrl}/?token=${encodeURIComponent(boardToken)}`);
    await page.locator('[data-testid="inbox"]').waitFor({ timeout: 30_000 });
    await page.locator('[data-status="live"]').waitFor({ timeout: 30_000 });
    const paint = async (session: string): Promise<{ ms: number; held: boolean }> => {
      const selector = `li.inbox-item[data-session=${JSON.stringify(session)}]`;
      await page.evaluate(watchFor(selector));
      await ring(session);
      const rung = Date.now();
      await page.waitForSelector(selector, { state: 'visible', timeout: 20_000 });
      // A function, not a string: the page's CSP refuses eval, which a string predicate needs.
      await page.waitForFunction(
        () => (globalThis as { __benchPainted?: number | null }).__benchPainted !== null,
        undefined,
        { timeout: 5000 },
      );
      const at = (await page.evaluate('window.__benchPainted')) as number;
      // When each read of the inbox started (the page's Resource Timing, on the same clock).
      const reads = (await page.evaluate(
        `performance.getEntriesByType('resource').filter((e) => e.name.includes('/api/sessions'))` +
          '.map((e) => performance.timeOrigin + e.startTime)',
      )) as number[];
      const showing = Math.max(...reads.filter((start) => start <= at));
      return {
        ms: at - rung,
        held: reads.some((start) => start > rung - PAGE_THROTTLE_MS && start < showing),
      };
    };
    // The page's first row (its list drawn for the first time): not timed.
    await paint('warm-up-page');
    for (let i = 0; i < ctx.options.paintBells; i++) {
      await sleep(PAGE_THROTTLE_MS + 100 + jitterMs());
      const sample = await paint(`bench-paint-${i + 1}`);
      times.push(sample.ms);
      if (sample.held) held.push(i);
    }
    await context.close();
  } finally {
    await browser.close();
  }
  return { times, held };
}

/** A script for the page: `window.__benchPainted` = Date.now() once `selector` is painted. */
function watchFor(selector: string): string {
  return `(() => {
    const selector = ${JSON.stringify(selector)};
    window.__benchPainted = null;
    const found = () => {
      if (document.querySelector(selector) === null) return false;
      requestAnimationFrame(() => setTimeout(() => { window.__benchPainted = Date.now(); }, 0));
      return true;
    };
    if (found()) return;
    const observer = new MutationObserver(() => { if (found()) observer.disconnect(); });
    observer.observe(document.body, { childList: true, subtree: true, attributes: true });
  })()`;
}

/** Waits until the board shows the agent up (its first polls answered). */
async function agentUp(boardUrl: string, boardToken: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const { view } = await boardView(boardUrl, boardToken);
    if (view.machines.some((m) => m.name === AGENT && m.state === 'up')) return;
    await sleep(100);
  }
  throw new Error(`the board did not show ${AGENT} up within 30 s`);
}
