import { describe, expect, it } from 'vitest';
import { testBoard } from '../../../test/helpers/board-kit.js';
import { parseJsonBody } from '../../shared/http/validation-hook.js';
import { keyProof } from '../../shared/wire/key-proof.js';
import type { Report } from '../../shared/wire/report.js';
import { overviewOf } from '../view/machine-record.js';
import { QUEUE_EXPIRY_MS } from './action-queue.js';
import { BOARD_WHO, registrationWho } from './who.js';

/** The overview the board keeps for `name`, as its JSON text. */
function keptOverview(name: string, t: ReturnType<typeof testBoard>): string | undefined {
  const m = t.registry.get(name);
  return m === undefined ? undefined : overviewOf(m)?.toString();
}

const KEY = 'machine-key-0123456789';
const LAB_KEY = 'lab-key-0123456789ab';
const machines = [{ name: 'web1', url: 'http://127.0.0.1:1', key: KEY }];

function journal(t: ReturnType<typeof testBoard>) {
  return t.journal.recent(100).map((e) => `${e.who} ${e.op} ${e.target} ${e.outcome} ${e.status}`);
}

describe('Board.doAction', () => {
  it("relays to a configured machine with its key and passes the machine's answer through", async () => {
    const t = testBoard({ machines });
    const body = { what: 'backup', action: 'start', ok: true, exit_code: 0, output: '' };
    t.client.answers.set('http://127.0.0.1:1', { kind: 'answer', status: 200, body });
    expect(await t.board.doAction(BOARD_WHO, 'web1', 'backup', 'start')).toEqual({
      status: 200,
      body,
    });
    expect(t.client.relays).toEqual([
      {
        target: { url: 'http://127.0.0.1:1', key: KEY, ca: null },
        what: 'backup',
        action: 'start',
      },
    ]);
    expect(journal(t)).toEqual(['board do web1/backup/start done 200']);
  });

  it('journals what the machine refused or failed, with its own status', async () => {
    const t = testBoard({ machines });
    t.client.answers.set('http://127.0.0.1:1', {
      kind: 'answer',
      status: 403,
      body: { detail: 'no' },
    });
    expect(await t.board.doAction(BOARD_WHO, 'web1', 'backup', 'stop')).toEqual({
      status: 403,
      body: { detail: 'no' },
    });
    t.client.answers.set('http://127.0.0.1:1', {
      kind: 'answer',
      status: 200,
      body: { ok: false, exit_code: 3 },
    });
    await t.board.doAction(BOARD_WHO, 'web1', 'backup', 'start');
    expect(journal(t)).toEqual([
      'board do web1/backup/start failed 200',
      'board do web1/backup/stop refused 403',
    ]);
    expect(t.journal.recent(1)[0]?.detail).toBe('not ok (exit 3)');
  });

  it('answers 502 when a configured machine is unreachable and 504 on a time-out', async () => {
    const t = testBoard({ machines });
    expect(await t.board.doAction(BOARD_WHO, 'web1', 'x', 'start')).toEqual({
      status: 502,
      body: { detail: "Machine 'web1' is unreachable: connection refused" },
    });
    t.client.answers.set('http://127.0.0.1:1', { kind: 'timeout', error: 'no answer within 3 s' });
    expect((await t.board.doAction(BOARD_WHO, 'web1', 'x', 'start')).status).toBe(504);
    expect(journal(t)).toEqual([
      'board do web1/x/start failed 504',
      'board do web1/x/start failed 502',
    ]);
  });

  it('answers 404 for an unknown machine, journaled', async () => {
    const t = testBoard({ machines });
    expect((await t.board.doAction(BOARD_WHO, 'nope', 'x', 'start')).status).toBe(404);
    expect(journal(t)).toEqual(['board do nope/x/start refused 404']);
    expect(t.client.relays).toEqual([]);
  });

  it('relays to an announced machine when it holds a key and reaches it, else queues', async () => {
    const t = testBoard({ announced_keys: { lab3: LAB_KEY } });
    const key_proof = keyProof(LAB_KEY, 'lab3', 'http://lab3:8701/');
    await t.board.report(registrationWho(''), {
      name: 'lab3',
      location: 'http://lab3:8701/',
      key_proof,
    });
    await t.board.report(registrationWho(''), { name: 'lab4', location: 'http://lab4:8701' });
    t.client.answers.set('http://lab3:8701', { kind: 'answer', status: 200, body: { ok: true } });
    expect(await t.board.doAction(BOARD_WHO, 'lab3', 'job', 'start')).toEqual({
      status: 200,
      body: { ok: true },
    });
    expect(t.client.relays[0]?.target).toEqual({ url: 'http://lab3:8701', key: LAB_KEY, ca: null });
    t.client.answers.delete('http://lab3:8701');
    const queued = await t.board.doAction(BOARD_WHO, 'lab3', 'job', 'stop');
    expect(queued.body).toMatchObject({ queued: true, name: 'lab3', what: 'job', action: 'stop' });
    const noKey = await t.board.doAction(BOARD_WHO, 'lab4', 'job', 'start');
    expect(noKey.body).toMatchObject({ queued: true, name: 'lab4' });
    expect(t.client.relays).toHaveLength(2);
    expect(t.journal.recent(1)[0]?.detail).toContain('the board holds no key for it');
  });
});

describe('how long the board waits for a relayed action', () => {
  const service = (name: string, timeout_s?: unknown) => ({
    name,
    kind: 'container',
    state: 'running',
    actions: ['start', 'stop'],
    board: ['start', 'stop'],
    busy: false,
    ...(timeout_s === undefined ? {} : { timeout_s }),
  });

  it("waits the service's timeout_s and poll_timeout, at most 10 minutes; poll_timeout when unsaid", async () => {
    const t = testBoard({ machines, poll_timeout: 3 });
    const overview = {
      services: [
        service('web', 18),
        service('huge', 86_400),
        service('bad', 'soon'),
        service('old'),
      ],
    };
    t.client.overviews.set('http://127.0.0.1:1', {
      ok: true,
      overview,
      json: JSON.stringify(overview),
    });
    // Before any poll: nothing is known of the service.
    await t.board.doAction(BOARD_WHO, 'web1', 'web', 'stop');
    await t.board.sweep();
    for (const what of ['web', 'huge', 'bad', 'old', 'unknown']) {
      await t.board.doAction(BOARD_WHO, 'web1', what, 'stop');
    }
    expect(t.client.relayTimeouts).toEqual([3000, 21_000, 600_000, 3000, 3000, 3000]);
  });

  it('waits as long for an announced machine that reported it', async () => {
    const t = testBoard({ announced_keys: { lab3: LAB_KEY }, poll_timeout: 2 });
    const location = 'http://lab3:8701';
    const key_proof = keyProof(LAB_KEY, 'lab3', location);
    const report = { name: 'lab3', location, key_proof, services: [service('web', 20)] };
    expect((await t.board.report(registrationWho(''), report as unknown as Report)).status).toBe(
      200,
    );
    t.client.answers.set(location, { kind: 'answer', status: 200, body: { ok: true } });
    await t.board.doAction(BOARD_WHO, 'lab3', 'web', 'stop');
    expect(t.client.relayTimeouts).toEqual([22_000]);
  });
});

describe('Board.report', () => {
  it('believes a location for a name it holds a key for only with a valid key_proof', async () => {
    const t = testBoard({ announced_keys: { lab3: LAB_KEY } });
    const location = 'http://lab3:8701';
    const missing = await t.board.report(registrationWho(''), { name: 'lab3', location });
    expect(missing.status).toBe(403);
    // A proof for another location (or made with another key) does not count.
    const moved = await t.board.report(registrationWho(''), {
      name: 'lab3',
      location: 'http://attacker.example',
      key_proof: keyProof(LAB_KEY, 'lab3', location),
    });
    expect(moved.status).toBe(403);
    const wrongKey = await t.board.report(registrationWho(''), {
      name: 'lab3',
      location,
      key_proof: keyProof('some-other-key-0123456789', 'lab3', location),
    });
    expect(wrongKey.status).toBe(403);
    expect(t.registry.get('lab3')).toBeUndefined();
    expect(journal(t)).toEqual([
      'registration report lab3 refused 403',
      'registration report lab3 refused 403',
      'registration report lab3 refused 403',
    ]);
    const ok = await t.board.report(registrationWho(''), {
      name: 'lab3',
      location,
      key_proof: keyProof(LAB_KEY, 'lab3', location),
    });
    expect(ok.status).toBe(200);
    expect(JSON.parse(keptOverview('lab3', t) ?? 'null')).toEqual({});
    // Names the board holds no key for need no proof.
    expect((await t.board.report(registrationWho(''), { name: 'lab4', location })).status).toBe(
      200,
    );
  });

  it('refuses a report naming a configured machine, journaled', async () => {
    const t = testBoard({ machines });
    const answer = await t.board.report(registrationWho(''), {
      name: 'web1',
      location: 'http://x',
    });
    expect(answer.status).toBe(409);
    expect(journal(t)).toEqual(['registration report web1 refused 409']);
    expect(t.registry.get('web1')?.origin).toBe('configured');
  });

  it('hands queued actions over until a report carries their result (at least once)', async () => {
    const t = testBoard();
    await t.board.report(registrationWho(''), { name: 'lab3', location: 'http://lab3' });
    const q = (await t.board.doAction(BOARD_WHO, 'lab3', 'job', 'start')).body as { id: string };
    expect(t.registry.get('lab3')?.queued).toBe(1);

    const first = await t.board.report(registrationWho(''), {
      name: 'lab3',
      location: 'http://lab3',
    });
    const second = await t.board.report(registrationWho(''), {
      name: 'lab3',
      location: 'http://lab3',
    });
    const handed = [{ id: q.id, what: 'job', action: 'start', requested_at: expect.any(String) }];
    expect(first.body).toEqual({ ok: true, actions: handed });
    expect(second.body).toEqual({ ok: true, actions: handed });

    const result = {
      id: q.id,
      status: 200,
      body: { what: 'job', action: 'start', ok: true, exit_code: 0, output: '' },
    };
    const third = await t.board.report(registrationWho(''), {
      name: 'lab3',
      location: 'http://lab3',
      results: [result, { id: 'unknown-id', status: 200, body: {} }],
    });
    expect(third.body).toEqual({ ok: true, actions: [] });
    expect(t.registry.get('lab3')?.queued).toBe(0);
    expect(journal(t)).toEqual([
      'registration do lab3/job/start done 200',
      'registration do lab3/job/start delivered null',
      'board do lab3/job/start queued 200',
      'registration announce lab3 announced 200',
    ]);
  });

  it("does not take another machine's result for an action", async () => {
    const t = testBoard();
    await t.board.report(registrationWho(''), { name: 'lab3', location: 'http://lab3' });
    await t.board.report(registrationWho(''), { name: 'lab4', location: 'http://lab4' });
    const q = (await t.board.doAction(BOARD_WHO, 'lab3', 'job', 'start')).body as { id: string };
    await t.board.report(registrationWho(''), {
      name: 'lab4',
      location: 'http://lab4',
      results: [{ id: q.id, status: 200, body: {} }],
    });
    expect(t.queue.get(q.id)).toBeDefined();
  });

  it('keeps the overview but not the name, location or results in it', async () => {
    const t = testBoard();
    await t.board.report(registrationWho(''), {
      name: 'lab3',
      location: 'http://lab3',
      hostname: 'lab3.local',
      results: [],
    });
    expect(JSON.parse(keptOverview('lab3', t) ?? 'null')).toEqual({
      hostname: 'lab3.local',
    });
  });

  it('keeps the same overview bytes for a parsed body (cut from its bytes) as for an object', async () => {
    const report = {
      hostname: 'lab3.local',
      name: 'lab3',
      cpu_use: 0.25,
      location: 'http://lab3',
      memory: { total: 100, free: 50, used: 50 },
      interval_s: 5,
      sessions: [{ session: 's', why: 'attention' as const, text: 'a "b"\n', at: '2026-01-01' }],
      results: [],
    };
    const text = JSON.stringify(report);
    const t = testBoard();
    await t.board.report(registrationWho(''), { ...report });
    const serialised = keptOverview('lab3', t);
    const u = testBoard();
    const parsed = parseJsonBody(Buffer.from(text)) as Report;
    await u.board.report(registrationWho(''), parsed);
    const cut = keptOverview('lab3', u);
    expect(cut).toBe(serialised);
    expect(u.registry.roomFor('other', 0)).toBe(true);
    const { name, location, interval_s, results, ...overview } = report;
    expect(serialised).toBe(JSON.stringify(overview));
  });

  it('expires queued actions after 24 h, journaled', async () => {
    const t = testBoard();
    await t.board.report(registrationWho(''), { name: 'lab3', location: 'http://lab3' });
    await t.board.doAction(BOARD_WHO, 'lab3', 'job', 'start');
    t.clock.advance(QUEUE_EXPIRY_MS - 1);
    await t.board.upkeep();
    expect(t.registry.get('lab3')?.queued).toBe(1);
    t.clock.advance(1);
    await t.board.upkeep();
    expect(t.registry.get('lab3')?.queued).toBe(0);
    expect(journal(t)[0]).toBe('board do lab3/job/start expired null');
  });

  it('journals cap refusals at most once a minute, with a count', async () => {
    const t = testBoard({ max_announced: 1 });
    await t.board.report(registrationWho(''), { name: 'a', location: 'http://a' });
    for (let i = 0; i < 50; i += 1) {
      expect(
        (await t.board.report(registrationWho(''), { name: `n${i}`, location: 'http://x' })).status,
      ).toBe(409);
    }
    expect(journal(t).filter((l) => l.includes('refused'))).toHaveLength(1);
    t.clock.advance(60_000);
    await t.board.report(registrationWho(''), { name: 'late', location: 'http://x' });
    const latest = t.journal.recent(1)[0];
    expect(latest?.detail).toContain('(50 report(s) of new names refused)');
  });

  it('refuses reports past max_announced_mb, new names and grown ones alike (found by the flood test)', async () => {
    const t = testBoard({ max_announced_mb: 0.01 }); // 10,485 characters of overview JSON
    const report = (name: string, size: number) =>
      t.board.report(registrationWho(''), {
        name,
        location: `http://${name}`,
        pad: 'p'.repeat(size),
      } as Parameters<typeof t.board.report>[1]);
    expect((await report('a', 6000)).status).toBe(200);
    const refused = await report('b', 6000);
    expect(refused.status).toBe(409);
    expect((refused.body as { detail: string }).detail).toContain('max_announced_mb: 0.01');
    expect(t.registry.get('b')).toBeUndefined();
    expect((await report('b', 3000)).status).toBe(200);
    expect((await report('b', 6000)).status).toBe(409);
    // A report no bigger than what the machine holds replaces it: it fits.
    expect((await report('a', 6000)).status).toBe(200);
    await t.board.forget(BOARD_WHO, 'a');
    expect((await report('b', 6000)).status).toBe(200);
    // Journaled at most once a minute, as refusals past the cap are.
    const refusals = t.journal.recent(100).filter((e) => e.outcome === 'refused');
    expect(refusals.map((e) => e.detail)).toEqual([
      expect.stringContaining('(1 report(s) refused for want of room)'),
    ]);
  });
});

describe('Board.forget', () => {
  it('forgets an announced machine and drops its queue; refuses configured and unknown ones', async () => {
    const t = testBoard({ machines });
    await t.board.report(registrationWho(''), { name: 'lab3', location: 'http://lab3' });
    await t.board.doAction(BOARD_WHO, 'lab3', 'job', 'start');
    expect(await t.board.forget(BOARD_WHO, 'lab3')).toEqual({
      status: 200,
      body: { ok: true, name: 'lab3', forgotten: true, dropped: 1 },
    });
    expect(t.registry.get('lab3')).toBeUndefined();
    expect(t.removed).toEqual(['lab3']);
    const configured = await t.board.forget(BOARD_WHO, 'web1');
    expect(configured.status).toBe(409);
    expect((configured.body as { detail: string }).detail).toContain('/etc/panoptes/board.yaml');
    expect((await t.board.forget(BOARD_WHO, 'lab3')).status).toBe(404);
  });
});

describe('Board.refusedToken', () => {
  it('journals 100 refused tokens a minute one by one, then counts them (found by the botnet test)', async () => {
    const t = testBoard();
    for (let i = 0; i < 150; i += 1) {
      await t.board.refusedToken(
        `10.0.${Math.floor(i / 100)}.${i % 100}`,
        'GET',
        '/api/board',
        401,
      );
    }
    const auth = () => t.journal.recent(1000).filter((e) => e.op === 'auth');
    expect(auth()).toHaveLength(101);
    expect(auth()[0]?.detail).toBe(
      '100 refused tokens this minute: more are counted, not journaled one by one',
    );
    expect(auth()[1]?.detail).toBe('wrong token: GET /api/board from 10.0.0.99');
    // The minute ends: the upkeep journals the count of those not journaled one by one.
    t.clock.advance(60_000);
    await t.board.upkeep();
    expect(auth()[0]?.detail).toMatch(
      /^50 more refused tokens from 50 address\(es\) in the minute from .*, not journaled one by one$/,
    );
    // A new minute, a new budget.
    await t.board.refusedToken('10.9.9.9', 'GET', '/api/board', 401);
    expect(auth()[0]?.detail).toBe('wrong token: GET /api/board from 10.9.9.9');
  });
});
