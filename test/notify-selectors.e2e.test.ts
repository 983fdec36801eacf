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
});
