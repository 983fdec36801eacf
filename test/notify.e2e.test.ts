import { createHmac } from 'node:crypto';
import Database from 'libsql';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningProgram, startBoard } from '../harness/processes.js';
import { type Received, Receiver } from '../src/board/notify/channels/receivers.js';
import { reportBody } from './helpers/browser.js';
import { eventually, Recorder, writeBoardConfig } from './helpers/fleet.js';
import { notifySecrets, scanForSecretsAfterAll } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

/** Rows of a table in the board's embedded store (state.db), read while the board is stopped. */
function storedRows(configDir: string, table: 'silences' | 'deliveries'): number {
  const db = new Database(`${configDir}/data/state.db`, { readonly: true });
  try {
    return (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
  } finally {
    db.close();
  }
}

const TOKEN = 'notify-e2e-board-token-7c1d';
const REG = 'notify-e2e-registration-4b9e';
const HOOK_SECRET = 'notify-e2e-hmac-secret-2f8a';
const HOOK_QUERY = 'notify-e2e-hook-query-9d3c';
const SMTP_PASS = 'notify-e2e-smtp-password-5e6f';

interface Mail {
  to: string[];
  data: string;
}

/**
 * Notifications end to end: a real board (board.yaml and the API only), a real webhook
 * receiver and a real SMTP server on loopback.
 */
describe('notifications: board.yaml, the API, a webhook and an SMTP server', () => {
  const dir = tempDir('panoptes-notify-');
  const hook = new Receiver();
  const mails: Mail[] = [];
  const smtp = new SMTPServer({
    authOptional: false,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onAuth(auth, _s, cb) {
      if (auth.username === 'board' && auth.password === SMTP_PASS) cb(null, { user: 'board' });
      else cb(new Error('Invalid username or password'));
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        mails.push({
          to: session.envelope.rcptTo.map((r) => r.address),
          data: Buffer.concat(chunks).toString(),
        });
        cb();
      });
    },
  });
  const http = new Recorder();
  let board: RunningProgram;
  let configDir = '';
  let config: Record<string, unknown> & Parameters<typeof notifySecrets>[0] = {};
  const env = { NOTIFY_SMTP_PASS: SMTP_PASS };

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
  const webhookEvents = (r: Received) =>
    (JSON.parse(r.body) as { events: { event: string; machine: string }[] }).events;

  beforeAll(async () => {
    await hook.start();
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
    const address = smtp.server.address();
    const smtpPort = typeof address === 'object' && address !== null ? address.port : 0;
    config = {
      board_token: TOKEN,
      registration_token: REG,
      sweep_interval: 0.2,
      stale_after: 1.5,
      public_url: 'https://board.example:8700',
      notify: {
        timeout: 2,
        channels: [
          {
            name: 'hook',
            url: `http://${hook.host}/panoptes?key=${HOOK_QUERY}`,
            secret: HOOK_SECRET,
          },
          {
            name: 'mail',
            url: `smtp://board:\${NOTIFY_SMTP_PASS}@127.0.0.1:${smtpPort}/?from=board@example.org&to=ops@example.org&encryption=none`,
          },
        ],
        rules: [
          { events: ['down', 'up'], channels: ['hook', 'mail'], machines: ['lab*'] },
          { events: ['bell'], channels: ['hook'] },
        ],
        templates: { email: '{{machine}} {{event}} {{reason}}' },
      },
    };
    configDir = writeBoardConfig(dir, 'b', config as Record<string, unknown>);
    board = await startBoard(configDir, { env });
  });
  afterAll(async () => {
    await board?.stop();
    await hook.stop();
    await new Promise<void>((resolve) => smtp.close(() => resolve()));
    // The secret scan (registered last, run first) has searched the directory by now.
    dir.cleanup();
  });

  it('GET /api/notify lists channels by name and kind, and the rules, never a URL', async () => {
    const answer = await call('/api/notify');
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({
      channels: [
        { name: 'hook', kind: 'webhook' },
        { name: 'mail', kind: 'email' },
      ],
      rules: [
        {
          events: ['down', 'up'],
          machines: ['lab*'],
          channels: ['hook', 'mail'],
          after: 0,
          failures: 1,
          repeat: 0,
        },
        { events: ['bell'], why: ['attention', 'error'] },
      ],
    });
    expect(answer.text).not.toContain('127.0.0.1');
    const spec = (await call('/api/openapi.json')).json as { paths: Record<string, unknown> };
    for (const path of ['/api/notify', '/api/notify/test', '/api/machines/{name}/silence']) {
      expect(Object.keys(spec.paths)).toContain(path);
    }
  });

  it('POST /api/notify/test: a real delivery (200), 502 saying why, 404 for an unknown channel, 422 for a bad body', async () => {
    hook.requests.length = 0;
    const ok = await call('/api/notify/test', {
      method: 'POST',
      body: JSON.stringify({ channel: 'hook' }),
    });
    expect(ok.status).toBe(200);
    expect(ok.json).toEqual({ channel: 'hook', ok: true });
    expect(webhookEvents(hook.requests[0] as Received)).toMatchObject([{ event: 'test' }]);
    const mailed = await call('/api/notify/test', {
      method: 'POST',
      body: JSON.stringify({ channel: 'mail' }),
    });
    expect(mailed.status).toBe(200);
    expect(mails.at(-1)?.to).toEqual(['ops@example.org']);

    hook.answer = () => ({ status: 500, body: 'receiver broke' });
    const failed = await call('/api/notify/test', {
      method: 'POST',
      body: JSON.stringify({ channel: 'hook' }),
    });
    hook.answer = () => ({ status: 200, body: '{}' });
    expect(failed.status).toBe(502);
    expect((failed.json as { detail: string }).detail).toMatch(/answered 500: receiver broke/);
    const unknown = await call('/api/notify/test', {
      method: 'POST',
      body: JSON.stringify({ channel: 'nope' }),
    });
    expect(unknown.status).toBe(404);
    expect(unknown.json).toEqual({ detail: "No notification channel named 'nope'" });
    const bad = await call('/api/notify/test', {
      method: 'POST',
      body: JSON.stringify({ channel: 5 }),
    });
    expect(bad.status).toBe(422);
    expect((bad.json as { detail: { loc: unknown[] }[] }).detail[0]?.loc).toEqual([
      'body',
      'channel',
    ]);
  });

  it('machines first seen send nothing; machines going down together are grouped (one signed message per channel per sweep); recovery says how long', async () => {
    hook.requests.length = 0;
    const mailsBefore = mails.length;
    for (const name of ['lab1', 'lab2', 'lab3', 'other1'])
      expect((await report(name)).status).toBe(200);
    // Let them go stale (stale_after 1.5 s): all four go down in the same upkeep tick or two.
    const message = await eventually(async () => {
      const downs = hook.requests.filter((r) => webhookEvents(r).some((e) => e.event === 'down'));
      const names = downs.flatMap((r) => webhookEvents(r).map((e) => e.machine));
      return names.length >= 3 ? downs : undefined;
    }, 'the down message');
    // other1 matches no rule; lab1-3 may straddle two upkeep ticks, never more messages than that.
    const names = message.flatMap((r) => webhookEvents(r).map((e) => e.machine)).sort();
    expect(names).toEqual(['lab1', 'lab2', 'lab3']);
    expect(message.length).toBeLessThanOrEqual(2);
    const first = message[0] as Received;
    const mac = createHmac('sha256', HOOK_SECRET).update(first.body).digest('hex');
    expect(first.headers['x-panoptes-signature']).toBe(`sha256=${mac}`);
    const body = JSON.parse(first.body) as {
      text: string;
      board_url: string;
      events: Record<string, unknown>[];
    };
    expect(body.board_url).toBe('https://board.example:8700');
    expect(body.events[0]).toMatchObject({
      event: 'down',
      state: 'down',
      previous: 'up',
      url: expect.stringMatching(/^https:\/\/board\.example:8700\/\?q=lab/),
      reason: expect.stringMatching(/^no report for/),
    });
    await eventually(async () => (mails.length > mailsBefore ? true : undefined), 'the down mail');
    expect(mails.at(-1)?.data).toMatch(/lab\d down no report for/);

    hook.requests.length = 0;
    await report('lab2');
    const up = await eventually(
      async () => hook.requests.find((r) => webhookEvents(r).some((e) => e.event === 'up')),
      'the recovery',
    );
    expect(webhookEvents(up)).toMatchObject([
      { event: 'up', machine: 'lab2', duration_s: expect.any(Number) },
    ]);
    expect((JSON.parse(up.body) as { text: string }).text).toMatch(
      /▲ lab2 is up again after \d+ s down/,
    );

    const journal = (await call('/api/journal?limit=100')).json as {
      entries: Record<string, unknown>[];
    };
    const notes = journal.entries.filter((e) => e.op === 'notify');
    expect(notes.some((e) => e.target === 'hook' && e.outcome === 'delivered')).toBe(true);
    expect(notes.some((e) => e.target === 'mail' && e.outcome === 'delivered')).toBe(true);
    expect(notes.some((e) => e.outcome === 'failed' && e.target === 'hook')).toBe(true);
  });

  it('a silence (validated, 404 for an unknown machine) is shown, survives a restart, holds back messages and is journaled', async () => {
    expect((await report('lab5')).status).toBe(200);
    const bad = await call('/api/machines/lab5/silence', {
      method: 'POST',
      body: JSON.stringify({ minutes: 0 }),
    });
    expect(bad.status).toBe(422);
    const tooLong = await call('/api/machines/lab5/silence', {
      method: 'POST',
      body: JSON.stringify({ minutes: 43_201 }),
    });
    expect(tooLong.status).toBe(422);
    const missing = await call('/api/machines/nope/silence', {
      method: 'POST',
      body: JSON.stringify({ minutes: 5 }),
    });
    expect(missing.status).toBe(404);
    const set = await call('/api/machines/lab5/silence', {
      method: 'POST',
      body: JSON.stringify({ minutes: 60, reason: 'disk swap' }),
    });
    expect(set.status).toBe(200);
    const answer = set.json as { name: string; silenced_until: string; reason: string };
    expect(answer).toMatchObject({ name: 'lab5', reason: 'disk swap' });
    expect(Date.parse(answer.silenced_until) - Date.now()).toBeGreaterThan(59 * 60_000);

    // Identities are saved after a sweep; then restart.
    await new Promise((r) => setTimeout(r, 500));
    await board.stop();
    expect(storedRows(configDir, 'silences')).toBe(1);
    board = await startBoard(configDir, { env });
    const view = (await call('/api/board')).json as {
      machines: { name: string; silenced_until: string | null }[];
    };
    expect(view.machines.find((m) => m.name === 'lab5')?.silenced_until).toBe(
      answer.silenced_until,
    );

    // lab5 reports (first seen since the restart: nothing), then goes stale: held back.
    hook.requests.length = 0;
    await report('lab5');
    await report('lab1');
    await eventually(async () => {
      const journal = (await call('/api/journal?limit=50')).json as {
        entries: Record<string, unknown>[];
      };
      return journal.entries.find(
        (e) => e.op === 'notify' && e.outcome === 'silenced' && String(e.detail).includes('lab5'),
      );
    }, 'the silenced journal entry');
    const sent = await eventually(async () => {
      const names = hook.requests.flatMap((r) => webhookEvents(r).map((e) => e.machine));
      return names.includes('lab1') ? names : undefined;
    }, 'the down of lab1');
    expect(sent).not.toContain('lab5');

    const ended = await call('/api/machines/lab5/silence', { method: 'DELETE' });
    expect(ended.json).toEqual({ name: 'lab5', silenced_until: null, reason: null });
    const journal = (await call('/api/journal?limit=200')).json as {
      entries: Record<string, unknown>[];
    };
    expect(journal.entries.filter((e) => e.op === 'silence').map((e) => e.outcome)).toEqual([
      'unsilenced',
      'silenced',
    ]);
  });

  it('a message in flight at SIGTERM is kept and delivered after the restart', async () => {
    hook.requests.length = 0;
    hook.answer = () => ({ status: 0 }); // never answers
    await report('lab7');
    await eventually(
      async () =>
        hook.requests.some((r) => webhookEvents(r).some((e) => e.machine === 'lab7'))
          ? true
          : undefined,
      'lab7 in flight',
    );
    await board.stop();
    expect(storedRows(configDir, 'deliveries')).toBe(1);
    hook.requests.length = 0;
    hook.answer = () => ({ status: 200, body: '{}' });
    board = await startBoard(configDir, { env });
    await eventually(
      async () =>
        hook.requests.some((r) =>
          webhookEvents(r).some((e) => e.machine === 'lab7' && e.event === 'down'),
        )
          ? true
          : undefined,
      'the kept message',
    );
    expect(storedRows(configDir, 'deliveries')).toBe(0);
  });

  scanForSecretsAfterAll(() => ({
    secrets: [TOKEN, REG, SMTP_PASS, ...notifySecrets(config)],
    recorders: [http],
    dirs: [dir.path],
  }));
});
