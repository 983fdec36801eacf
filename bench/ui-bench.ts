import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { stringify } from 'yaml';
import { launchBrowser } from '../harness/browser.js';
import { ROOT, startBoard } from './processes.js';
import { measure, type PageGlobals, timeInteraction } from './ui-bench-page.js';

/**
 * `npm run bench:ui`: the board UI in Debian's Chromium against a real board holding 1,000 and
 * 10,000 announced machines. It measures what a person waits for — the first render of the
 * board and one machine's live update until it is painted — and how the page copes with 10,000
 * machines (filter, sort, page change), then writes the figures under "## UI" in
 * docs/performance.md. A benchmark, not a test: it asserts nothing.
 *
 * The page measures itself: the UI records `panoptes:first-render` (navigation start → the first
 * board painted) and `panoptes:update` (a live message received → painted) with the User Timing
 * API, after a frame and a task, i.e. once the browser has painted.
 */

const DOC = join(ROOT, 'docs/performance.md');
const BOARD_TOKEN = 'ui-bench-board-token-8c1d4e7f';
const REGISTRATION = 'ui-bench-registration-3a9b2c5d';
const SIZES = [1000, 10_000];
const FIRST_RENDER_RUNS = 5;
const UPDATE_RUNS = 20;

function log(message: string): void {
  process.stderr.write(`bench:ui ${message}\n`);
}

/** A realistic announced machine: four services, two disks, a few sessions (~2 KB). */
function report(i: number, cpuUse = (i % 97) / 100): Record<string, unknown> {
  const name = `m${String(i).padStart(5, '0')}`;
  return {
    name,
    location: `http://10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}:8701/`,
    hostname: `${name}.fleet.example`,
    platform: 'linux',
    arch: i % 3 === 0 ? 'arm64' : 'x64',
    uptime_s: 1000 + i,
    load: [(i % 13) / 4, (i % 11) / 4, (i % 7) / 4],
    cpus: 8,
    cpu_use: cpuUse,
    memory: { total: 64e9, free: 64e9 - (i % 60) * 1e9, used: (i % 60) * 1e9 },
    disks: [
      { path: '/', total: 500e9, free: 500e9 - (i % 450) * 1e9, used: (i % 450) * 1e9 },
      { path: '/data', total: 4e12, free: 3e12, used: 1e12 },
    ],
    services: ['backup', 'worker', 'ingest', 'train'].map((s, k) => ({
      name: s,
      kind: k % 2 === 0 ? 'command' : 'process',
      state: (i + k) % 3 === 0 ? 'running' : 'stopped',
      actions: ['start', 'stop'],
      board: k === 3 ? [] : ['start', 'stop'],
      busy: false,
    })),
    sessions: [
      {
        session: `claude-${i}`,
        why: i % 40 === 0 ? 'attention' : 'finished',
        text: 'Refactored the ingest pipeline; all tests pass. Waiting for review of the plan.',
        at: new Date(Date.UTC(2026, 0, 1, 0, 0, i % 3600)).toISOString(),
      },
      {
        session: `codex-${i}`,
        why: i % 97 === 0 ? 'error' : 'finished',
        text: 'cargo test: 2 failed',
        at: new Date(Date.UTC(2026, 0, 1, 1, 0, i % 3600)).toISOString(),
      },
    ],
    version: '0.1.0',
    time: new Date().toISOString(),
  };
}

async function post(url: string, body: unknown): Promise<void> {
  const r = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${REGISTRATION}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await r.text();
  if (r.status !== 200) throw new Error(`report: ${r.status} ${text.slice(0, 200)}`);
}

/** Announces `count` machines, 32 reports in flight at a time. */
async function announce(boardUrl: string, count: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next;
      next += 1;
      await post(`${boardUrl}/api/report`, report(i));
    }
  };
  await Promise.all(Array.from({ length: 32 }, worker));
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)] ?? Number.NaN;
}

function quantile(values: number[], q: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)] ?? Number.NaN;
}

interface SizeResult {
  machines: number;
  boardBytes: number;
  firstRender: number[];
  /** Navigation start → DOMContentLoaded (page and script loaded), per run. */
  loaded: number[];
  /** GET /api/board, request start → last byte, per run. */
  boardFetch: number[];
  updateInPage: number[];
  updateEndToEnd: number[];
  domNodes: number;
  cards: number;
  heapMb: number | null;
  filter: number | null;
  sort: number | null;
  nextPage: number | null;
}

async function benchSize(browser: Browser, count: number): Promise<SizeResult> {
  const dir = mkdtempSync(join(tmpdir(), 'panoptes-ui-bench-'));
  writeFileSync(
    join(dir, 'board.yaml'),
    stringify({
      board_token: BOARD_TOKEN,
      registration_token: REGISTRATION,
      sweep_interval: 5,
      stale_after: 3600,
      max_announced: Math.max(count, 10_000),
      machines: [],
    }),
  );
  const board = await startBoard(dir);
  try {
    log(`${count} machines: announcing`);
    await announce(board.url, count);
    const view = await fetch(`${board.url}/api/board`, {
      headers: { authorization: `Bearer ${BOARD_TOKEN}` },
    }).then((r) => r.text());
    const result: SizeResult = {
      machines: count,
      boardBytes: Buffer.byteLength(view),
      firstRender: [],
      loaded: [],
      boardFetch: [],
      updateInPage: [],
      updateEndToEnd: [],
      domNodes: 0,
      cards: 0,
      heapMb: null,
      filter: null,
      sort: null,
      nextPage: null,
    };

    log(`${count} machines: first render ×${FIRST_RENDER_RUNS}`);
    for (let run = 0; run < FIRST_RENDER_RUNS; run += 1) {
      const context = await browser.newContext({ viewport: { width: 1600, height: 1000 } });
      const page = await context.newPage();
      await page.goto(`${board.url}/?token=${BOARD_TOKEN}`);
      result.firstRender.push((await measure(page, 'panoptes:first-render')).duration);
      const parts = await page.evaluate(() => {
        const perf = (globalThis as unknown as PageGlobals).performance;
        const nav = perf.getEntriesByType('navigation')[0];
        const fetch = perf.getEntriesByType('resource').find((e) => e.name.endsWith('/api/board'));
        return {
          loaded: nav?.domContentLoadedEventEnd ?? Number.NaN,
          board: fetch === undefined ? Number.NaN : fetch.responseEnd - fetch.startTime,
        };
      });
      result.loaded.push(parts.loaded);
      result.boardFetch.push(parts.board);
      await context.close();
    }

    log(`${count} machines: one machine's update ×${UPDATE_RUNS}`);
    const context = await browser.newContext({ viewport: { width: 1600, height: 1000 } });
    const page = await context.newPage();
    await page.goto(`${board.url}/?token=${BOARD_TOKEN}`);
    await measure(page, 'panoptes:first-render');
    await page.locator('[data-status="live"]').waitFor({ timeout: 60_000 });
    // The socket's own copy of the board lands first (as an update): wait for it.
    await measure(page, 'panoptes:update');
    const origin = await page.evaluate(
      () => (globalThis as unknown as PageGlobals).performance.timeOrigin,
    );
    let last = await page.evaluate(() => (globalThis as unknown as PageGlobals).performance.now());
    for (let run = 0; run < UPDATE_RUNS; run += 1) {
      // The first machine by name is on the first page: its card changes visibly.
      const sent = Date.now();
      await post(`${board.url}/api/report`, report(0, ((run * 37) % 100) / 100));
      const m = await measure(page, 'panoptes:update', last);
      last = m.startTime + m.duration;
      result.updateInPage.push(m.duration);
      result.updateEndToEnd.push(origin + m.startTime + m.duration - sent);
      await page.waitForTimeout(150);
    }

    result.domNodes = await page.evaluate(
      () => (globalThis as unknown as PageGlobals).document.getElementsByTagName('*').length,
    );
    result.cards = await page.evaluate(
      () => (globalThis as unknown as PageGlobals).document.querySelectorAll('article').length,
    );
    const heap = await page.evaluate(
      () => (globalThis as unknown as PageGlobals).performance.memory?.usedJSHeapSize ?? null,
    );
    result.heapMb = heap === null ? null : heap / 1e6;

    log(`${count} machines: filter, sort, next page`);
    result.filter = await timeInteraction(page, 'filter');
    await timeInteraction(page, 'clear-filter');
    result.sort = await timeInteraction(page, 'sort');
    result.nextPage = await timeInteraction(page, 'next-page');
    await context.close();
    return result;
  } finally {
    await board.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const ms = (v: number | null) => (v === null || Number.isNaN(v) ? '—' : `${v.toFixed(0)} ms`);

function render(results: SizeResult[], chromiumVersion: string): string {
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  const lines = [
    '## UI',
    '',
    'Measured by `npm run bench:ui` (bench/ui-bench.ts): the built UI in headless Debian Chromium',
    'against a real board holding that many announced machines (each a ~2 KB report: four',
    'services, two disks, two sessions). The page measures itself with the User Timing API:',
    '*first render* is navigation start → the first board painted (HTML, script, GET /api/board,',
    'parsing and the first page of cards); *update, in page* is a live message received → painted;',
    "*update, end to end* adds the board's side: a report POSTed → the change painted (the board",
    'batches live messages every 100 ms). Median and slowest of the runs; the page shows 60 cards',
    'per page whatever the fleet size, so the DOM stays small.',
    '',
    `Run on ${new Date().toISOString().slice(0, 10)}: ${cpus().length} × ${cpu}, Node ${process.version}, ${chromiumVersion}.`,
    '',
    '| figure | ' +
      results.map((r) => `${r.machines.toLocaleString('en')} machines`).join(' | ') +
      ' |',
    `|---|${results.map(() => '---').join('|')}|`,
  ];
  const row = (label: string, f: (r: SizeResult) => string) =>
    lines.push(`| ${label} | ${results.map(f).join(' | ')} |`);
  row('GET /api/board size', (r) => `${(r.boardBytes / 1e6).toFixed(1)} MB`);
  row(`first render, median of ${FIRST_RENDER_RUNS}`, (r) => ms(median(r.firstRender)));
  row('first render, slowest', (r) => ms(Math.max(...r.firstRender)));
  row('… of which page and script loaded (DOMContentLoaded), median', (r) => ms(median(r.loaded)));
  row('… of which GET /api/board (request → last byte), median', (r) => ms(median(r.boardFetch)));
  row(`one machine's update painted, in page, median of ${UPDATE_RUNS}`, (r) =>
    ms(median(r.updateInPage)),
  );
  row("one machine's update painted, in page, p95", (r) => ms(quantile(r.updateInPage, 0.95)));
  row('update end to end (report POSTed → painted), median', (r) => ms(median(r.updateEndToEnd)));
  row('type a filter → painted', (r) => ms(r.filter));
  row('change the sort → painted', (r) => ms(r.sort));
  row('next page → painted', (r) => ms(r.nextPage));
  row('cards in the DOM / all elements', (r) => `${r.cards} / ${r.domNodes}`);
  row('JS heap in use', (r) => (r.heapMb === null ? '—' : `${r.heapMb.toFixed(0)} MB`));
  lines.push(
    '',
    'Targets: first render under 1 s and one update painted under 50 ms with 1,000 machines;',
    'usable with 10,000 (paginated: filter, sort and paging stay interactive).',
    '',
  );
  return lines.join('\n');
}

/** Replaces the "## UI" section of docs/performance.md (other sections are others'). */
function writeSection(section: string): void {
  let doc = '';
  try {
    doc = readFileSync(DOC, 'utf8');
  } catch {
    doc = '# Performance\n\n';
  }
  const start = doc.search(/^## UI\s*$/m);
  if (start === -1) {
    writeFileSync(DOC, `${doc.trimEnd()}\n\n${section}`);
    return;
  }
  const rest = doc.slice(start + 5);
  const next = rest.search(/^## /m);
  const end = next === -1 ? doc.length : start + 5 + next;
  writeFileSync(DOC, `${doc.slice(0, start)}${section}${next === -1 ? '' : `\n${doc.slice(end)}`}`);
}

async function main(): Promise<void> {
  const browser = await launchBrowser(['--enable-precise-memory-info']);
  const version = `Chromium ${browser.version()}`;
  const results: SizeResult[] = [];
  try {
    for (const size of SIZES) results.push(await benchSize(browser, size));
  } finally {
    await browser.close();
  }
  const section = render(results, version);
  process.stdout.write(`${section}\n`);
  writeSection(section);
  log(`written to ${DOC}`);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `bench:ui failed: ${error instanceof Error ? error.stack : String(error)}\n`,
  );
  process.exit(1);
});
