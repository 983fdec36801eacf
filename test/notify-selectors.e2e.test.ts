import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningProgram, startBoard } from '../harness/processes.js';
import { type Received, Receiver } from '../src/board/notify/channels/receivers.js';
import { reportBody } from './helpers/browser.js';
import { eventually, Recorder, writeBoardConfig } from './helpers/fleet.js';
import { tempDir } from './helpers/tmp.js';

const TOKEN = 'notify-selectors-board-token-3a7f';
const REG = 'notify-selectors-registration-8c2d';

/** Label selectors in notifications: a rule's `selector:` and silences naming a selector. */
describe('notifications by label selector: rules and silences on a real board', () => {
  const dir = tempDir('panoptes-notify-selectors-');
  const hook = new Receiver();
  const http = new Recorder();
  let board: RunningProgram;
  let configDir = '';

  const call = (path: string, init: RequestInit = {}) =>
    http.call(`${board.url}${path}`, {
      ...init,
      token: TOKEN,
      headers: { 'content-type': 'application/json' },
    });
  const report = (name: string) =>
    http.call(`${board.url}/api/report`, {
      method: 'POST',
      token: REG,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(reportBody(name, `http://${name}.lab:8701`, [])),
    });
  const label = async (name: string, labels: Record<string, string>) => {
    const answer = await call(`/api/machines/${name}/labels`, {
      method: 'PUT',
      body: JSON.stringify({ labels }),
    });
    expect(answer.status).toBe(200);
  };
  const events = (r: Received) =>
    (JSON.parse(r.body) as { events: { event: string; machine: string }[] }).events;
  const sentDowns = () =>
    hook.requests.flatMap((r) =>
      events(r)
        .filter((e) => e.event === 'down')
        .map((e) => e.machine),
    );
  const journalled = async (match: (e: Record<string, unknown>) => boolean) => {
    const journal = (await call('/api/journal?limit=200')).json as {
      entries: Record<string, unknown>[];
    };
    return journal.entries.find(match);
  };

  beforeAll(async () => {
    await hook.start();
    configDir = writeBoardConfig(dir, 'b', {
      board_token: TOKEN,
      registration_token: REG,
      sweep_interval: 0.2,
      stale_after: 1.5,
      notify: {
        timeout: 2,
        channels: [{ name: 'hook', url: `http://${hook.host}/panoptes` }],
        rules: [{ events: ['down'], channels: ['hook'], selector: 'env=prod' }],
      },
    });
    board = await startBoard(configDir);
  });
  afterAll(async () => {
    await board?.stop();
    await hook.stop();
    dir.cleanup();
  });

  it('a rule with selector env=prod sends for the prod machine going down, not for the dev one', async () => {
    const rules = ((await call('/api/notify')).json as { rules: Record<string, unknown>[] }).rules;
    expect(rules).toMatchObject([{ machines: ['*'], selector: 'env=prod' }]);
    for (const name of ['prod1', 'dev1']) expect((await report(name)).status).toBe(200);
    await label('prod1', { env: 'prod' });
    await label('dev1', { env: 'dev' });
    hook.requests.length = 0;
    await eventually(async () => (sentDowns().includes('prod1') ? true : undefined), 'prod1 down');
    // Both went stale together; give dev1's down (were it sent) the same few sweeps.
    await eventually(
      async () =>
        (await journalled((e) => e.op === 'notify' && e.outcome === 'delivered')) ?? undefined,
      'the delivery journaled',
    );
    await new Promise((r) => setTimeout(r, 1000));
    expect(sentDowns()).toEqual(['prod1']);
  });

  it('a selector silence: 422 naming the position, listed, covers a machine that joins it, survives a restart, holds back only its machines, journaled', async () => {
    const start = (body: unknown) =>
      call('/api/silences', { method: 'POST', body: JSON.stringify(body) });
    const bad = await start({ selector: 'site in (fra', minutes: 60 });
    expect(bad.status).toBe(422);
    expect(
      (bad.json as { detail: { loc: unknown[]; ctx: { position: number } }[] }).detail[0],
    ).toMatchObject({
      loc: ['body', 'selector'],
      ctx: { position: expect.any(Number) },
    });
    expect((await start({ selector: '  ', minutes: 60 })).status).toBe(422);
    expect((await start({ selector: 'site=fra', minutes: 0 })).status).toBe(422);

    for (const name of ['fra1', 'ams1']) expect((await report(name)).status).toBe(200);
    await label('ams1', { env: 'prod', site: 'ams' });
    const started = await start({ selector: 'site=fra', minutes: 60, reason: 'rack move' });
    expect(started.status).toBe(201);
    const silence = started.json as { id: string; selector: string; until: string; reason: string };
    expect(silence).toMatchObject({ selector: 'site=fra', reason: 'rack move' });
    expect(Date.parse(silence.until) - Date.now()).toBeGreaterThan(59 * 60_000);
    // fra1 joins the selection while the silence runs.
    await label('fra1', { env: 'prod', site: 'fra' });
    const silencedUntil = async () => {
      const view = (await call('/api/board')).json as {
        machines: { name: string; silenced_until: string | null }[];
      };
      return Object.fromEntries(view.machines.map((m) => [m.name, m.silenced_until]));
    };
    await eventually(
      async () => ((await silencedUntil()).fra1 === silence.until ? true : undefined),
      "fra1's record shows the silence",
    );
    expect((await silencedUntil()).ams1).toBeNull();

    await new Promise((r) => setTimeout(r, 500));
    await board.stop();
    board = await startBoard(configDir);
    expect((await call('/api/silences')).json).toEqual({ silences: [silence] });
    expect((await silencedUntil()).fra1).toBe(silence.until);

    // Both report (first seen since the restart: nothing), then go stale together.
    hook.requests.length = 0;
    for (const name of ['fra1', 'ams1']) expect((await report(name)).status).toBe(200);
    await eventually(async () => (sentDowns().includes('ams1') ? true : undefined), 'ams1 down');
    await eventually(
      async () =>
        journalled(
          (e) => e.op === 'notify' && e.outcome === 'silenced' && String(e.detail).includes('fra1'),
        ),
      'fra1 held back',
    );
    expect(sentDowns()).not.toContain('fra1');

    const ended = await call(`/api/silences/${silence.id}`, { method: 'DELETE' });
    expect(ended.status).toBe(200);
    expect(ended.json).toEqual(silence);
    expect((await call(`/api/silences/${silence.id}`, { method: 'DELETE' })).status).toBe(404);
    expect((await call('/api/silences')).json).toEqual({ silences: [] });
    await eventually(
      async () => ((await silencedUntil()).fra1 === null ? true : undefined),
      'the silence gone from the record',
    );
    const journal = (await call('/api/journal?limit=200')).json as {
      entries: Record<string, unknown>[];
    };
    expect(
      journal.entries.filter((e) => e.op === 'silence').map((e) => [e.target, e.outcome]),
    ).toEqual([
      ['selector site=fra', 'unsilenced'],
      ['selector site=fra', 'silenced'],
    ]);
  });
});
