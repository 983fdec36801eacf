import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { PushService, type Subscriber } from '../harness/push-service.js';
import { SECRETS } from './helpers/agent-fixtures.js';
import { BOARD_TOKEN, type Fleet, startFleet } from './helpers/browser.js';
import { eventually, Recorder } from './helpers/fleet.js';
import { scanForSecretsAfterAll } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

const SUBJECT = 'mailto:ops@example.org';

interface JournalEntry {
  op: string;
  target: string;
  outcome: string;
  detail: string;
}

/**
 * Web Push end to end: a real board (board.yaml: push.subject, a webpush channel, a rule on
 * bells), a real agent whose session rings, and a local push service that checks the VAPID
 * signature and decrypts each message with the subscriber's own keys, as a browser would.
 */
describe('Web Push: a bell on a real agent reaches a subscribed browser through its push service', () => {
  const dir = tempDir('panoptes-push-');
  const service = new PushService(SUBJECT);
  const http = new Recorder();
  let fleet: Fleet;
  let phone: Subscriber;
  let laptop: Subscriber;
  let publicKey = '';
  let phoneId = '';

  const call = (path: string, init: { method?: string; body?: unknown } = {}) =>
    http.call(`${fleet.board.url}${path}`, {
      method: init.method ?? 'GET',
      token: BOARD_TOKEN,
      headers: { 'content-type': 'application/json' },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    });
  const until = (cond: () => boolean, what: string) =>
    eventually(async () => (cond() ? true : undefined), what, 20_000);
  const journal = async () =>
    ((await call('/api/journal?limit=200')).json as { entries: JournalEntry[] }).entries;

  beforeAll(async () => {
    await service.start();
    fleet = await startFleet(dir, {
      configured: [{ name: 'lab3', services: {} }],
      board: {
        push: { subject: SUBJECT, allow_http_endpoints: true, allow_private_endpoints: true },
        notify: {
          timeout: 3,
          channels: [{ name: 'phone', url: 'webpush://?ttl=3600' }],
          rules: [{ events: ['bell'], channels: ['phone'] }],
        },
      },
    });
    phone = service.subscriber();
    laptop = service.subscriber();
  });
  afterAll(async () => {
    await fleet?.stop();
    await service.stop();
  });

  it('gives the VAPID key and takes subscriptions (the same endpoint: the same id)', async () => {
    const key = await call('/api/push/key');
    expect(key.status).toBe(200);
    publicKey = (key.json as { public_key: string }).public_key;
    expect(Buffer.from(publicKey, 'base64url')).toHaveLength(65);
    const a = await call('/api/push/subscriptions', { method: 'POST', body: phone.json });
    expect(a.status).toBe(200);
    expect(a.json).toEqual({ id: expect.stringMatching(/^[A-Za-z0-9_-]+$/) });
    phoneId = (a.json as { id: string }).id;
    expect(
      (await call('/api/push/subscriptions', { method: 'POST', body: phone.json })).json,
    ).toEqual(a.json);
    expect(
      (await call('/api/push/subscriptions', { method: 'POST', body: laptop.json })).status,
    ).toBe(200);
    expect((await call('/api/notify')).json).toMatchObject({
      channels: [{ name: 'phone', kind: 'webpush' }],
    });
    // A test message: one real delivery to each browser.
    const test = await call('/api/notify/test', { method: 'POST', body: { channel: 'phone' } });
    expect(test.json).toEqual({ channel: 'phone', ok: true });
    for (const who of [phone, laptop])
      expect(service.to(who).map((d) => d.payload)).toEqual([
        {
          title: 'Panoptes: test',
          body: 'Test message from Panoptes: channel phone',
          machine: null,
          session: null,
          url: '/',
        },
      ]);
  });

  it('a session that wants attention: each browser gets the bell, signed and readable only by it', async () => {
    // A bell rung before the board first sees a machine is old news: wait for the first poll.
    await eventually(async () => {
      const board = (await call('/api/board')).json as { machines: { state: string }[] };
      return board.machines[0]?.state === 'up' ? true : undefined;
    }, 'lab3 up on the board');
    await fleet.bell('lab3', 'claude-7', 'attention', 'Claude needs your permission to use Bash');
    await until(
      () => service.to(phone).length > 1 && service.to(laptop).length > 1,
      'the bell at both browsers',
    );
    expect(service.problems).toEqual([]);
    for (const who of [phone, laptop]) {
      expect(service.to(who)[1]).toMatchObject({
        payload: {
          title: 'Panoptes: lab3 bell',
          body: '! lab3: session claude-7 needs attention: Claude needs your permission to use Bash',
          machine: 'lab3',
          session: 'claude-7',
          url: '/?q=lab3',
        },
        ttl: 3600,
        urgency: 'high',
        vapidKey: publicKey,
        jwt: { aud: service.origin, sub: SUBJECT },
      });
    }
    const delivered = await eventually(
      async () =>
        (await journal()).find(
          (e) => e.op === 'notify' && e.outcome === 'delivered' && e.detail.includes('bell'),
        ),
      'the delivery journaled',
    );
    expect(delivered).toMatchObject({
      target: 'phone',
      detail: '1 bell (lab3) delivered to 2 browsers',
    });
  });

  it('a browser whose subscription ended (410) is dropped, journaled once, and not sent to again', async () => {
    service.answer = (who) => (who === laptop.id ? 410 : 201);
    const before = service.to(phone).length;
    await fleet.bell('lab3', 'claude-7', 'error', 'tests failed');
    await until(() => service.to(phone).length > before, 'the second bell');
    const dropped = await eventually(async () => {
      const found = (await journal()).filter((e) => e.op === 'push' && e.outcome === 'dropped');
      return found.length > 0 ? found : undefined;
    }, 'the drop journaled');
    expect(dropped).toHaveLength(1);
    // The test message, the first bell, and the one answered 410.
    expect(service.hits.get(laptop.id)).toBe(3);
    await fleet.bell('lab3', 'claude-7', 'attention', 'once more');
    await until(() => service.to(phone).length > before + 1, 'the third bell');
    expect(service.hits.get(laptop.id)).toBe(3);
    expect((await journal()).filter((e) => e.outcome === 'dropped')).toHaveLength(1);
  });

  it('refuses internal addresses once push.allow_private_endpoints is off: at subscribe (422) and at connect, journaling no address', async () => {
    // Taken while the setting is on (a local push service), at a name resolving to 127.0.0.1.
    const local = service.subscriber();
    const byName = {
      ...local.json,
      endpoint: local.json.endpoint.replace('127.0.0.1', 'localhost'),
    };
    expect((await call('/api/push/subscriptions', { method: 'POST', body: byName })).status).toBe(
      200,
    );
    const file = `${fleet.configDir}/board.yaml`;
    const config = parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    writeFileSync(
      file,
      stringify({ ...config, push: { subject: SUBJECT, allow_http_endpoints: true } }),
    );
    process.kill(fleet.board.pid, 'SIGHUP');
    const probe = service.subscriber();
    const first = await eventually(async () => {
      const r = await call('/api/push/subscriptions', { method: 'POST', body: probe.json });
      return r.status === 422 ? r : undefined;
    }, 'the reload');
    expect(JSON.stringify(first.json)).toMatch(/loopback/);
    const forms: [string, RegExp][] = [
      ['https://127.0.0.1:19445', /loopback/],
      ['https://localhost:19445', /loopback/],
      ['https://[::1]:19445', /loopback/],
      ['https://2130706433:19445', /loopback/],
      ['https://[::ffff:127.0.0.1]:19445', /loopback/],
      ['https://169.254.169.254', /cloud metadata/],
      ['https://[fd00:ec2::254]', /cloud metadata/],
      ['https://192.168.1.1', /private/],
      ['https://100.64.0.1', /carrier-grade NAT/],
    ];
    for (const [origin, what] of forms) {
      const body = { ...probe.json, endpoint: `${origin}/push/${probe.id}` };
      const r = await call('/api/push/subscriptions', { method: 'POST', body });
      expect(r.status, origin).toBe(422);
      expect(r.json, origin).toMatchObject({
        detail: [{ loc: ['body', 'endpoint'], msg: expect.stringMatching(what) }],
      });
      expect(JSON.stringify(r.json)).not.toContain(probe.id);
    }
    // Kept from before: the board does not connect there now (checked again at connect).
    const test = await call('/api/notify/test', { method: 'POST', body: { channel: 'phone' } });
    expect(test.status).toBe(502);
    expect(JSON.stringify(test.json)).toMatch(/not reached \(0 reached\): .*loopback/);
    expect(service.hits.get(local.id)).toBeUndefined();
    const failed = await eventually(
      async () => (await journal()).find((e) => e.op === 'notify' && e.outcome === 'failed'),
      'the failure journaled',
    );
    expect(failed.detail).toMatch(/loopback/);
    const notes = (await journal()).filter((e) => e.op === 'notify');
    for (const text of [JSON.stringify(test.json), JSON.stringify(notes)]) {
      expect(text).not.toContain(`:${service.port}`);
      expect(text).not.toMatch(/ECONNREFUSED|::1|127\.0\.0\.1/);
    }
  });

  it('refuses an http: endpoint once push.allow_http_endpoints is off, and deletes by id', async () => {
    const file = `${fleet.configDir}/board.yaml`;
    const config = parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    writeFileSync(file, stringify({ ...config, push: { subject: SUBJECT } }));
    process.kill(fleet.board.pid, 'SIGHUP');
    const late = service.subscriber();
    // Until the reload lands, the test before's settings refuse it too (a private address).
    const refused = await eventually(async () => {
      const r = await call('/api/push/subscriptions', { method: 'POST', body: late.json });
      return r.status === 422 && /https:/.test(JSON.stringify(r.json)) ? r : undefined;
    }, 'the reload');
    expect(JSON.stringify(refused.json)).toMatch(/https:/);
    expect(JSON.stringify(refused.json)).not.toContain(late.id);
    // Kept from before: deleting is by id, whatever the endpoint.
    const id = phoneId;
    expect((await call(`/api/push/subscriptions/${id}`, { method: 'DELETE' })).status).toBe(200);
    expect((await call(`/api/push/subscriptions/${id}`, { method: 'DELETE' })).status).toBe(404);
  });

  it('never lets an endpoint or a key into an answer, a log line or the journal', async () => {
    const entries = JSON.stringify(await journal());
    for (const who of [phone, laptop]) {
      expect(entries).not.toContain(who.id);
      expect(entries).not.toContain(who.json.keys.auth);
    }
  });

  // The endpoints' paths (the capability) and the subscribers' auth secrets, beside the tokens.
  scanForSecretsAfterAll(() => ({
    secrets: [...SECRETS, BOARD_TOKEN, ...[phone, laptop].flatMap((s) => [s.id, s.json.keys.auth])],
    recorders: [http],
    // The subscriptions' own answers echo nothing; the requests that carried them are not scanned.
  }));
});
