/// <reference lib="dom" />
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, expect, vi } from 'vitest';
import { stringify } from 'yaml';
import { launchBrowser } from '../../harness/browser.js';
import { type RunningProgram, startAgent, startBoard } from '../../harness/processes.js';
import { BOARD_KEY, OPERATOR, REGISTRATION } from './agent-fixtures.js';
import { closedPort } from './fleet.js';
import type { TempDir } from './tmp.js';

/**
 * Bounds for the browser tests: a page waits on real processes on a machine whose two cores are
 * shared with every other test file, so a condition may take seconds (never a timing assertion).
 */
function useBrowserTestBounds(): void {
  vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000, expect: { poll: { timeout: 15_000 } } });
}

/** A page that records every console error, uncaught exception and CSP violation. */
export interface WatchedPage {
  page: Page;
  /** Problems seen so far, except the ones `allow` matched. */
  problems(): string[];
  /** Tolerates problems matching `pattern` (a test that provokes a 401 expects its log line). */
  allow(pattern: RegExp): void;
  /** Fails the test if the page logged an error or violated its CSP. */
  expectClean(): Promise<void>;
}

declare global {
  interface Window {
    __cspViolations?: string[];
  }
}

/** Opens a page in `context` and starts watching it. */
export async function watchedPage(context: BrowserContext): Promise<WatchedPage> {
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  const seen: string[] = [];
  const allowed: RegExp[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'assert')
      seen.push(`console.${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => seen.push(`uncaught: ${e.message}`));
  await page.addInitScript(() => {
    window.__cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) => {
      window.__cspViolations?.push(`csp: ${e.violatedDirective} ${e.blockedURI}`);
    });
  });
  const problems = () => seen.filter((p) => !allowed.some((a) => a.test(p)));
  return {
    page,
    problems,
    allow: (pattern) => allowed.push(pattern),
    async expectClean() {
      const csp = page.isClosed()
        ? []
        : await page.evaluate(() => window.__cspViolations ?? []).catch(() => []);
      expect([...problems(), ...csp.filter((c) => !allowed.some((a) => a.test(c)))]).toEqual([]);
    },
  };
}

/** Every request the page made, with the Authorization header it carried. */
export function recordRequests(page: Page): { url: string; method: string; auth: string | null }[] {
  const log: { url: string; method: string; auth: string | null }[] = [];
  page.on('request', (r) => {
    log.push({ url: r.url(), method: r.method(), auth: r.headers().authorization ?? null });
  });
  return log;
}

/** Opens the board as a user does, with the token in the address, and waits for the summary. */
export async function openBoard(page: Page, url: string, token: string): Promise<void> {
  await page.goto(`${url}/?token=${encodeURIComponent(token)}`);
  await page.getByTestId('summary').waitFor();
}

/** The card of one machine. */
export function card(page: Page, name: string) {
  return page.locator(`article[data-machine="${name}"]`);
}

// --- The fixture of the browser tests ---

export interface BrowserPageOptions {
  /** The test's directory: the fleet's files go there; removed once everything has stopped. */
  dir: TempDir;
  /**
   * A fleet for the page to talk to, started while the browser launches: its options, or a
   * function giving them (called after the hooks registered before this fixture have run).
   */
  fleet?: FleetOptions | (() => FleetOptions | Promise<FleetOptions>);
  /**
   * Each test's page: the options of its browser context (a fresh one per test, checked clean
   * after it), or `false` when the tests open their own pages with `open`.
   */
  page?: BrowserContextOptions | false;
}

/** What `useBrowserPage` gives a test file; each accessor throws outside a test or hook. */
export interface BrowserPage {
  readonly browser: Browser;
  /** The fleet of `options.fleet`. */
  readonly fleet: Fleet;
  /** This test's context and watched page (unless `page: false`). */
  readonly context: BrowserContext;
  readonly watched: WatchedPage;
  readonly page: Page;
  /** A watched page in a new context of its own, closed after the file unless closed before. */
  open(options?: BrowserContextOptions): Promise<WatchedPage>;
}

/**
 * The set-up every browser test file shares, registered where it is called (first in a
 * describe, so that the file's own hooks run after its beforeAll and before its afterAll):
 * Debian's Chromium and, beside it, the fleet of `options.fleet`; for each test a fresh context
 * and a watched page that must end clean; after all, the browser closed, the fleet stopped and
 * the directory removed. It also sets the bounds of `useBrowserTestBounds`.
 */
export function useBrowserPage(options: BrowserPageOptions): BrowserPage {
  useBrowserTestBounds();
  let browser: Browser | undefined;
  let fleet: Fleet | undefined;
  let context: BrowserContext | undefined;
  let watched: WatchedPage | undefined;
  const opened: BrowserContext[] = [];

  beforeAll(async () => {
    const fleetOptions =
      typeof options.fleet === 'function' ? await options.fleet() : options.fleet;
    // Both settle before a failure is thrown, so that afterAll can close what did start.
    const [launched, started] = await Promise.allSettled([
      launchBrowser(),
      fleetOptions === undefined ? undefined : startFleet(options.dir, fleetOptions),
    ]);
    if (launched.status === 'fulfilled') browser = launched.value;
    if (started.status === 'fulfilled') fleet = started.value;
    if (launched.status === 'rejected') throw launched.reason;
    if (started.status === 'rejected') throw started.reason;
  });
  afterAll(async () => {
    for (const c of opened) await c.close().catch(() => undefined);
    await browser?.close();
    await fleet?.stop();
    options.dir.cleanup();
  });
  const pageOptions = options.page ?? {};
  if (pageOptions !== false) {
    beforeEach(async () => {
      context = await need(browser, 'the browser').newContext(pageOptions);
      watched = await watchedPage(context);
    });
    afterEach(async () => {
      try {
        await watched?.expectClean();
      } finally {
        await context?.close();
        context = undefined;
        watched = undefined;
      }
    });
  }

  return {
    get browser() {
      return need(browser, 'the browser');
    },
    get fleet() {
      return need(fleet, 'the fleet');
    },
    get context() {
      return need(context, "this test's context");
    },
    get watched() {
      return need(watched, "this test's page");
    },
    get page() {
      return need(watched, "this test's page").page;
    },
    async open(contextOptions = {}) {
      const c = await need(browser, 'the browser').newContext(contextOptions);
      opened.push(c);
      return watchedPage(c);
    },
  };
}

function need<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`${what} is there only in a test or hook`);
  return value;
}

// --- A small real fleet: a board, configured agents, an announcing agent ---

export const BOARD_TOKEN = 'ui-e2e-board-token-5b2f8d1c';

export interface Fleet {
  board: RunningProgram;
  agents: Map<string, RunningProgram>;
  /** The agent config files, by machine name (to restart an agent). */
  agentFiles: Map<string, string>;
  configDir: string;
  /** POST /api/report as an announcing machine would (the test plays that machine). */
  report(body: Record<string, unknown>): Promise<void>;
  /** Stops an agent (if running) and starts it again with the same file. */
  restartAgent(name: string): Promise<RunningProgram>;
  /** POST /api/bell on a configured agent, with its operator token. */
  bell(machine: string, session: string, why: string, text: string): Promise<void>;
  stop(): Promise<void>;
}

export interface AgentSpec {
  name: string;
  services: Record<string, Record<string, unknown>>;
  /** Announce to the board instead of being configured on it. */
  announce?: { interval: number; location: string };
  /** More of the agent's config (e.g. `containers`, `sample_interval`). */
  extra?: Record<string, unknown>;
  /** A configured machine's labels in board.yaml (`machines[].labels`). */
  labels?: Record<string, string>;
}

export interface FleetOptions {
  configured: AgentSpec[];
  announced?: AgentSpec[];
  /** Agents the board is not told about (the test announces them itself, with their URL). */
  standalone?: AgentSpec[];
  down?: string[];
  board?: Record<string, unknown>;
  lang?: Record<string, unknown>;
}

/** Writes an agent's YAML file and returns its path. */
function writeAgent(dir: TempDir, spec: AgentSpec, boardUrl: string | null): string {
  const config: Record<string, unknown> = {
    name: spec.name,
    token: OPERATOR,
    board_key: BOARD_KEY,
    data_dir: `${dir.path}/${spec.name}-data`,
    services: spec.services,
    ...spec.extra,
  };
  if (spec.announce !== undefined && boardUrl !== null) {
    config.location = spec.announce.location;
    config.report = { board: boardUrl, token: REGISTRATION, interval: spec.announce.interval };
  }
  return dir.write(`${spec.name}.yaml`, stringify(config));
}

/**
 * Starts the configured agents, then a board polling them (plus `down` machines on dead ports),
 * then the announcing agents. Everything listens on 127.0.0.1.
 */
export async function startFleet(dir: TempDir, options: FleetOptions): Promise<Fleet> {
  const agents = new Map<string, RunningProgram>();
  const agentFiles = new Map<string, string>();
  const started: RunningProgram[] = [];
  try {
    const machines: Record<string, unknown>[] = [];
    for (const spec of options.configured) {
      const file = writeAgent(dir, spec, null);
      const agent = await startAgent(file);
      started.push(agent);
      agents.set(spec.name, agent);
      agentFiles.set(spec.name, file);
      machines.push({
        name: spec.name,
        url: agent.url,
        key: BOARD_KEY,
        ...(spec.labels === undefined ? {} : { labels: spec.labels }),
      });
    }
    for (const spec of options.standalone ?? []) {
      const file = writeAgent(dir, spec, null);
      const agent = await startAgent(file);
      started.push(agent);
      agents.set(spec.name, agent);
      agentFiles.set(spec.name, file);
    }
    for (const name of options.down ?? []) {
      machines.push({ name, url: `http://127.0.0.1:${await closedPort()}`, key: BOARD_KEY });
    }
    const configDir = `${dir.path}/board`;
    dir.write(
      'board/board.yaml',
      stringify({
        board_token: BOARD_TOKEN,
        registration_token: REGISTRATION,
        sweep_interval: 0.5,
        poll_timeout: 2,
        machines,
        ...options.board,
      }),
    );
    for (const [code, catalogue] of Object.entries(options.lang ?? {})) {
      dir.write(`board/lang/${code}.json`, JSON.stringify(catalogue));
    }
    const board = await startBoard(configDir);
    started.push(board);
    for (const spec of options.announced ?? []) {
      const file = writeAgent(dir, spec, board.url);
      const agent = await startAgent(file);
      started.push(agent);
      agents.set(spec.name, agent);
      agentFiles.set(spec.name, file);
    }
    const post = async (url: string, token: string, body: unknown) => {
      const r = await fetch(url, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(10_000),
      });
      const text = await r.text();
      if (r.status !== 200) throw new Error(`POST ${url}: ${r.status} ${text}`);
    };
    return {
      board,
      agents,
      agentFiles,
      configDir,
      report: (body) => post(`${board.url}/api/report`, REGISTRATION, body),
      async restartAgent(name) {
        const file = agentFiles.get(name);
        if (file === undefined) throw new Error(`no agent ${name}`);
        await agents.get(name)?.stop();
        const agent = await startAgent(file);
        agents.set(name, agent);
        return agent;
      },
      bell: (machine, session, why, text) => {
        const agent = agents.get(machine);
        if (agent === undefined) throw new Error(`no agent ${machine}`);
        return post(`${agent.url}/api/bell`, OPERATOR, { session, why, text });
      },
      async stop() {
        await Promise.all([...agents.values(), board].map((p) => p.stop()));
        await Promise.all(started.map((p) => p.stop()));
      },
    };
  } catch (error) {
    await Promise.all(started.map((p) => p.stop()));
    throw error;
  }
}

/** A report body for a machine the test itself plays: an overview with these services. */
export function reportBody(
  name: string,
  location: string,
  services: { name: string; state?: string; board: string[]; actions?: string[] }[],
): Record<string, unknown> {
  return {
    name,
    location,
    hostname: `${name}.lab`,
    platform: 'linux',
    arch: 'x64',
    uptime_s: 1000,
    load: [0.5, 0.4, 0.3],
    cpus: 4,
    cpu_use: 0.25,
    memory: { total: 16e9, free: 8e9, used: 8e9 },
    disks: [{ path: '/', total: 100e9, free: 40e9, used: 60e9 }],
    services: services.map((s) => ({
      name: s.name,
      kind: 'command',
      state: s.state ?? 'stopped',
      actions: s.actions ?? ['start', 'stop'],
      board: s.board,
      busy: false,
    })),
    sessions: [],
    version: '0.1.0',
    time: new Date().toISOString(),
  };
}
