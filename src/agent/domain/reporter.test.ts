import { describe, expect, it } from 'vitest';
import type { HandedAction, HandedResult } from '../../shared/wire/action.js';
import type { ActionName } from '../../shared/wire/common.js';
import type { Overview } from '../../shared/wire/overview.js';
import type { Report } from '../../shared/wire/report.js';
import { ManualClock } from './manual-clock.js';
import type { RanEntry, RanStore } from './ran-ids.js';
import { isRevokedRefusal, Reporter, type ReporterDeps } from './reporter.js';
import type { ActionOutcome } from './services.js';

const OVERVIEW: Overview = {
  name: 'lab3',
  hostname: 'lab3',
  platform: 'linux',
  arch: 'x64',
  uptime_s: 1,
  load: [0, 0, 0],
  cpus: 1,
  cpu_use: 0,
  memory: { total: 1, free: 1, used: 0 },
  disks: [],
  services: [],
  sessions: [],
  version: '0.1.0',
  time: '2025-01-01T00:00:00.000Z',
};

class MemoryStore implements RanStore {
  readonly entries = new Map<string, RanEntry>();
  get(id: string) {
    return this.entries.get(id);
  }
  async markStarted(id: string) {
    this.entries.set(id, { id, state: 'started' });
  }
  async record(result: HandedResult) {
    this.entries.set(result.id, { id: result.id, state: 'done', result });
  }
}

function handed(id: string, what = 'backup', action: ActionName = 'start'): HandedAction {
  return { id, what, action, requested_at: '2025-01-01T00:00:00.000Z' };
}

/** A reporter against a board played by the test: `answer` decides each reply. */
function setup(store = new MemoryStore(), extra: Partial<ReporterDeps> = {}) {
  const clock = new ManualClock();
  const reports: Report[] = [];
  const ran: string[] = [];
  const logs: string[] = [];
  let answer: (report: Report) => { status: number; body: unknown } | Error = () => ({
    status: 200,
    body: { ok: true, actions: [] },
  });
  let random = 0.5;
  const reporter = new Reporter({
    intervalMs: 10_000,
    location: 'http://lab3:8701',
    overview: async () => OVERVIEW,
    act: async (what, action): Promise<ActionOutcome> => {
      ran.push(`${what}/${action}`);
      return { status: 200, body: { what, action, ok: true, exit_code: 0, output: 'done' } };
    },
    store,
    post: async (json) => {
      const report = JSON.parse(json) as Report;
      reports.push(report);
      const reply = answer(report);
      if (reply instanceof Error) throw reply;
      return reply;
    },
    clock,
    random: () => random,
    log: {
      info: (_f, m) => logs.push(m),
      warn: (_f, m) => logs.push(m),
      error: (_f, m) => logs.push(m),
    },
    ...extra,
  });
  return {
    clock,
    reports,
    ran,
    logs,
    store,
    reporter,
    answerWith(fn: typeof answer) {
      answer = fn;
    },
    setRandom(r: number) {
      random = r;
    },
  };
}

const ok = (actions: HandedAction[] = []) => ({ status: 200, body: { ok: true, actions } });

describe('Reporter', () => {
  it("takes the answer's update and says each accepted report (updates from the board)", async () => {
    const updates: string[] = [];
    let accepted = 0;
    const t = setup(new MemoryStore(), {
      update: (asked) => updates.push(asked.id),
      accepted: () => {
        accepted += 1;
      },
    });
    const update = { id: 'u1', requested_at: '2025-01-01T00:00:00.000Z' };
    t.answerWith(() => ({ status: 200, body: { ok: true, actions: [], update } }));
    t.reporter.start();
    await t.clock.advance(0);
    expect(updates).toEqual(['u1']);
    expect(accepted).toBe(1);
    // A refused report confirms nothing and hands no update.
    t.answerWith(() => ({ status: 503, body: { detail: 'busy' } }));
    await t.clock.advance(10_000);
    expect(accepted).toBe(1);
    expect(updates).toEqual(['u1']);
    await t.reporter.stop();
  });

  it("hands the runner the answer's checks; an answer without them leaves it alone", async () => {
    const versions: string[] = [];
    const t = setup(new MemoryStore(), { checks: (c) => versions.push(c.version) });
    const checks = {
      version: 'v1',
      checks: [
        {
          name: 'web',
          type: 'tcp',
          target: '127.0.0.1:80',
          interval_s: 10,
          timeout_s: 1,
          conditions: [],
        },
      ],
    };
    t.answerWith(() => ({ status: 200, body: { ok: true, actions: [], checks } }));
    t.reporter.start();
    await t.clock.advance(0);
    expect(versions).toEqual(['v1']);
    t.answerWith(() => ok());
    await t.clock.advance(10_000);
    expect(versions).toEqual(['v1']);
    // Checks the answer's schema refuses are not handed, but the actions beside them run and
    // the report counts as accepted (a bad checks member never costs the actions).
    t.answerWith(() => ({
      status: 200,
      body: {
        ok: true,
        actions: [handed('c1')],
        checks: { version: 'v2', checks: [{ name: 'x' }] },
      },
    }));
    await t.clock.advance(10_000);
    await t.reporter.settled();
    expect(versions).toEqual(['v1']);
    expect(t.ran).toEqual(['backup/start']);
    expect(t.reporter.failing).toBe(0);
    await t.reporter.stop();
  });

  it('reports soon when nudged (a check failed), at most once a second however often', async () => {
    const t = setup();
    t.reporter.start();
    await t.clock.advance(0);
    expect(t.reports).toHaveLength(1);
    t.reporter.nudge();
    await t.clock.advance(0);
    expect(t.reports).toHaveLength(2);
    t.reporter.nudge();
    t.reporter.nudge();
    await t.clock.advance(999);
    expect(t.reports).toHaveLength(2);
    await t.clock.advance(1);
    expect(t.reports).toHaveLength(3);
    await t.reporter.stop();
  });

  it('reports the overview with name and location at once, then every interval', async () => {
    const t = setup();
    t.reporter.start();
    await t.clock.advance(0);
    expect(t.reports).toHaveLength(1);
    expect(t.reports[0]).toMatchObject({ name: 'lab3', location: 'http://lab3:8701', cpus: 1 });
    expect(t.reports[0]).not.toHaveProperty('results');
    await t.clock.advance(9_999);
    expect(t.reports).toHaveLength(1);
    await t.clock.advance(1);
    expect(t.reports).toHaveLength(2);
    await t.reporter.stop();
    await t.clock.advance(60_000);
    expect(t.reports).toHaveLength(2);
  });

  it('runs a handed action once and sends its result until a report carrying it is accepted', async () => {
    const t = setup();
    // A board as docs/api.md has it: an action stays queued until a report carries its result.
    const queue = new Map([['q1', handed('q1')]]);
    let down = false;
    t.answerWith((report) => {
      if (down) return { status: 503, body: { detail: 'busy' } };
      for (const r of report.results ?? []) queue.delete(r.id);
      // The board goes away right after handing the action over.
      down = queue.size > 0;
      return ok([...queue.values()]);
    });
    t.reporter.start();
    await t.clock.advance(0);
    await t.reporter.settled();
    expect(t.ran).toEqual(['backup/start']);
    // The result went out at once, in a report the board failed to take.
    expect(t.reports).toHaveLength(2);
    expect(t.reports.at(-1)?.results).toEqual([
      {
        id: 'q1',
        status: 200,
        body: { what: 'backup', action: 'start', ok: true, exit_code: 0, output: 'done' },
      },
    ]);
    down = false;
    await t.clock.advance(30_000);
    expect(queue.size).toBe(0);
    const carried = t.reports.filter((r) => r.results?.some((x) => x.id === 'q1')).length;
    expect(carried).toBe(2);
    expect(t.reports.at(-1)).not.toHaveProperty('results');
    expect(t.ran).toEqual(['backup/start']);
    await t.reporter.stop();
  });

  it('a board handing an id again gets the stored result at the next interval, no second run', async () => {
    const t = setup();
    t.answerWith(() => ok([handed('q1')]));
    t.reporter.start();
    await t.clock.advance(0);
    await t.reporter.settled();
    await t.clock.advance(0);
    const count = t.reports.length;
    await t.clock.advance(9_999);
    expect(t.reports.length).toBe(count);
    await t.clock.advance(1);
    expect(t.reports.length).toBe(count + 1);
    expect(t.reports.at(-1)?.results?.map((r) => r.id)).toEqual(['q1']);
    expect(t.ran).toEqual(['backup/start']);
    await t.reporter.stop();
  });

  it('never runs an id the store knows (an earlier run, before a restart); re-sends its result', async () => {
    const store = new MemoryStore();
    await store.record({ id: 'old', status: 200, body: { ok: true } });
    await store.markStarted('cut');
    const t = setup(store);
    t.answerWith((report) => (report.results ? ok() : ok([handed('old'), handed('cut')])));
    t.reporter.start();
    await t.clock.advance(0);
    await t.reporter.settled();
    await t.clock.advance(10_000);
    expect(t.ran).toEqual([]);
    const results = t.reports.find((r) => r.results)?.results ?? [];
    expect(results.map((r) => [r.id, r.status])).toEqual([
      ['old', 200],
      ['cut', 500],
    ]);
    await t.reporter.stop();
  });

  it('records the id as started before running it, and the result after', async () => {
    const store = new MemoryStore();
    const t = setup(store);
    const seen: (string | undefined)[] = [];
    const original = store.markStarted.bind(store);
    store.markStarted = async (id) => {
      await original(id);
      seen.push(store.get(id)?.state);
    };
    t.answerWith((report) => (report.results ? ok() : ok([handed('q9')])));
    t.reporter.start();
    await t.clock.advance(0);
    await t.reporter.settled();
    expect(seen).toEqual(['started']);
    expect(store.get('q9')).toMatchObject({ state: 'done', result: { status: 200 } });
    await t.reporter.stop();
  });

  it('backs off with jitter while the board is unreachable, up to five minutes, then recovers', async () => {
    const t = setup();
    t.answerWith(() => new Error('connect ECONNREFUSED'));
    t.setRandom(0); // the shortest jitter: 0.8 of the nominal delay
    t.reporter.start();
    await t.clock.advance(0);
    const times: number[] = [t.clock.now()];
    for (let i = 0; i < 8; i += 1) {
      const before = t.reports.length;
      while (t.reports.length === before) await t.clock.advance(1000);
      times.push(t.clock.now());
    }
    const gaps = times.slice(1).map((at, i) => at - (times[i] ?? 0));
    // 10 s doubling: 20, 40, 80, 160, then the 300 s cap; each × 0.8, rounded up to the 1 s steps.
    expect(gaps).toEqual([16_000, 32_000, 64_000, 128_000, 240_000, 240_000, 240_000, 240_000]);
    expect(t.logs.filter((m) => m === 'report failed; backing off')).toHaveLength(1);
    t.answerWith(() => ok());
    await t.clock.advance(300_000);
    expect(t.reporter.failing).toBe(0);
    expect(t.logs).toContain('board reachable again');
    const before = t.reports.length;
    await t.clock.advance(10_000);
    expect(t.reports.length).toBe(before + 1);
    await t.reporter.stop();
  });

  it('the jitter stays within ±20 %', async () => {
    for (const [random, expected] of [
      [0.999, 23_992],
      [0.5, 20_000],
    ] as const) {
      const t = setup();
      t.answerWith(() => ({ status: 401, body: { detail: 'Not authenticated' } }));
      t.setRandom(random);
      t.reporter.start();
      await t.clock.advance(0);
      await t.clock.advance(expected - 1);
      expect(t.reports).toHaveLength(1);
      await t.clock.advance(1);
      expect(t.reports).toHaveLength(2);
      await t.reporter.stop();
    }
  });

  it('a reply that is not a report answer counts as a failure and runs nothing', async () => {
    const t = setup();
    t.answerWith(() => ({ status: 200, body: { actions: [{ id: 'x' }] } }));
    t.reporter.start();
    await t.clock.advance(0);
    await t.reporter.settled();
    expect(t.reporter.failing).toBe(1);
    expect(t.ran).toEqual([]);
    await t.reporter.stop();
  });

  it('runs handed actions one after another, in the order handed', async () => {
    const t = setup();
    t.answerWith((report) =>
      report.results ? ok() : ok([handed('1', 'a', 'stop'), handed('2', 'a', 'start')]),
    );
    t.reporter.start();
    await t.clock.advance(0);
    await t.reporter.settled();
    expect(t.ran).toEqual(['a/stop', 'a/start']);
    await t.reporter.stop();
  });

  it('proves each report with the key of the moment, and says when the board revoked it', async () => {
    let key: string | null = 'key-1';
    let revoked = 0;
    const t = setup(undefined, {
      keyProof: (at) => (key === null ? null : `proof of ${key} at ${at}`),
      revoked: () => {
        revoked += 1;
      },
    });
    t.reporter.start();
    await t.clock.advance(0);
    expect(t.reports[0]?.key_proof).toMatch(/^proof of key-1 at /);
    expect(t.reports[0]?.key_proof_at).toEqual(expect.any(String));
    const detail =
      "'lab3' was revoked on this board; add it again from the board before it reports";
    t.answerWith(() => ({ status: 403, body: { detail, revoked: true } }));
    await t.clock.advance(10_000);
    expect(revoked).toBe(1);
    expect(t.reporter.failing).toBe(1);
    key = null;
    await t.clock.advance(30_000);
    expect(t.reports[2]).not.toHaveProperty('key_proof');
    expect(t.reports[2]).not.toHaveProperty('key_proof_at');
    expect(revoked).toBe(2);
    // Another 403 is a refusal like any other.
    t.answerWith(() => ({ status: 403, body: { detail: 'must prove it holds the key' } }));
    await t.clock.advance(60_000);
    expect(t.reports).toHaveLength(4);
    expect(revoked).toBe(2);
    await t.reporter.stop();
  });

  it('knows a revoked refusal by its member, or by the words of a board from before it', () => {
    const words = "'lab3' was revoked on this board; add it again from the board before it reports";
    expect(isRevokedRefusal(403, { detail: 'x', revoked: true })).toBe(true);
    expect(isRevokedRefusal(403, { detail: words })).toBe(true);
    expect(isRevokedRefusal(403, { detail: 'a report must prove the key' })).toBe(false);
    expect(isRevokedRefusal(409, { detail: words, revoked: true })).toBe(false);
    expect(isRevokedRefusal(403, undefined)).toBe(false);
    expect(isRevokedRefusal(403, { revoked: 'yes' })).toBe(false);
  });
});
