import { createECDH, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import webpush from 'web-push';
import {
  checkVapid,
  decryptPush,
  encryptPush,
  PushService,
} from '../../../../harness/push-service.js';
import { ManualClock } from '../../../shared/clock.js';
import { EventHub } from '../../domain/events.js';
import { Journal } from '../../domain/journal.js';
import { BOARD_WHO } from '../../domain/who.js';
import type { JournalEntry } from '../../schemas.js';
import { MemoryStore } from '../../store/memory/state-store.js';
import { deliver } from '../deliver.js';
import type { NotifyEvent } from '../event.js';
import { WebPush } from '../push.js';
import type { PushSettings } from '../push-config.js';
import { renderMessage } from '../render.js';
import { HOSTILE, LINE_BREAKS } from './contract.case.js';
import { parseChannelUrl } from './index.js';
import { PAYLOAD_MAX, pushPayload } from './webpush.js';

const SUBJECT = 'mailto:ops@example.org';
const T0 = Date.parse('2026-05-01T12:00:00Z');

const bell = (over: Partial<NotifyEvent> = {}): NotifyEvent => ({
  event: 'bell',
  machine: 'lab3',
  at: '2026-05-01T12:00:00.000Z',
  session: 'claude-7',
  why: 'attention',
  message: 'Claude needs your permission to use Bash',
  ...over,
});

describe('webpush://: the URL and the payload', () => {
  it('takes webpush:// with ttl and urgency, and nothing that names a host', () => {
    expect(parseChannelUrl('webpush://').kind).toBe('webpush');
    expect(parseChannelUrl('webpush://?ttl=60&urgency=normal').kind).toBe('webpush');
    for (const url of [
      'webpush://push.example',
      'webpush://x/y',
      'webpush://?urgency=now',
      'webpush://?ttl=-1',
    ])
      expect(() => parseChannelUrl(url), url).toThrow();
  });

  it('carries title, body, machine, session and the link to the board page', () => {
    const channel = parseChannelUrl('webpush://');
    const message = renderMessage([bell()], null, 'https://board.example', channel.escape);
    expect(JSON.parse(pushPayload(message))).toEqual({
      title: 'Panoptes: lab3 bell',
      body: '! lab3: session claude-7 needs attention: Claude needs your permission to use Bash',
      machine: 'lab3',
      session: 'claude-7',
      url: 'https://board.example/?q=lab3',
    });
    // Without public_url, a path the service worker opens on the board's own origin.
    const local = renderMessage([bell({ machine: 'a b' })], null, null, channel.escape);
    expect(JSON.parse(pushPayload(local))).toMatchObject({ url: '/?q=a%20b' });
    // Several machines: no machine, no session, the board itself.
    const two = renderMessage([bell(), bell({ machine: 'web1' })], null, null, channel.escape);
    expect(JSON.parse(pushPayload(two))).toMatchObject({ machine: null, session: null, url: '/' });
  });

  it("keeps a machine's text on one line and the payload within its bound", () => {
    const channel = parseChannelUrl('webpush://');
    const hostile = bell({ machine: HOSTILE, session: HOSTILE, message: HOSTILE.repeat(400) });
    const json = pushPayload(renderMessage([hostile], null, null, channel.escape));
    expect(Buffer.byteLength(json)).toBeLessThanOrEqual(PAYLOAD_MAX);
    const payload = JSON.parse(json) as Record<string, string>;
    for (const key of ['title', 'machine', 'session'])
      expect(payload[key]?.split(LINE_BREAKS)).toHaveLength(1);
    expect(payload.body).toContain('text⏎✖ web1 is down⏎✖ 2');
    expect(payload.body).toMatch(/… \(cut\)$/);
  });
});

describe('webpush://: to a push service that checks VAPID and decrypts as a browser does', () => {
  const service = new PushService(SUBJECT);
  let settings: PushSettings;
  let clock: ManualClock;
  let entries: JournalEntry[];
  let store: MemoryStore;
  let push: WebPush;
  const channel = parseChannelUrl('webpush://?ttl=600');
  const send = (events: NotifyEvent[], options: { backoffMs?: number[] } = {}) =>
    deliver(channel, renderMessage(events, null, null, channel.escape), {
      timeoutMs: 5000,
      backoffMs: options.backoffMs ?? [1, 1],
      push: { channel: 'phone', port: async () => push },
    });
  const subscribe = async (json: unknown) => push.subscribe(BOARD_WHO, json as never);

  beforeAll(() => service.start());
  afterAll(() => service.stop());
  beforeEach(() => {
    service.deliveries.length = 0;
    service.problems.length = 0;
    service.answer = () => 201;
    settings = {
      subject: SUBJECT,
      allowHttpEndpoints: true,
      allowPrivateEndpoints: true,
      maxSubscriptions: 3,
    };
    clock = new ManualClock(T0);
    entries = [];
    store = new MemoryStore();
    const journal = new Journal(
      clock,
      new EventHub(),
      {
        append: async (e) => {
          entries.push(e);
        },
        remove: async () => undefined,
      },
      [],
    );
    push = new WebPush({ table: store.push, settings: () => settings, clock, journal });
  });

  it('sends each browser the message, signed with the kept key and readable only by it', async () => {
    const phone = service.subscriber();
    const laptop = service.subscriber();
    const key = await push.publicKey();
    expect(key.status).toBe(200);
    const publicKey = (key.body as { public_key: string }).public_key;
    expect(Buffer.from(publicKey, 'base64url')).toHaveLength(65);
    // Made once: the same key again (and from the store, for every board of it).
    expect((await push.publicKey()).body).toEqual({ public_key: publicKey });
    expect((await store.push.list()).length).toBe(0);
    const a = await subscribe(phone.json);
    const b = await subscribe(laptop.json);
    expect(a).toMatchObject({ status: 200, body: { id: expect.any(String) } });
    // The same endpoint again: the same id.
    expect(await subscribe(phone.json)).toEqual(a);
    expect(b.body).not.toEqual(a.body);

    const result = await send([bell()]);
    expect(service.problems).toEqual([]);
    expect(result).toMatchObject({ ok: true, status: 201, tries: 1, detail: 'to 2 browsers' });
    for (const who of [phone, laptop]) {
      const [got, ...more] = service.to(who);
      expect(more).toEqual([]);
      expect(got).toMatchObject({
        payload: {
          title: 'Panoptes: lab3 bell',
          machine: 'lab3',
          session: 'claude-7',
          url: '/?q=lab3',
        },
        ttl: 600,
        urgency: 'high',
        vapidKey: publicKey,
        jwt: { aud: service.origin, sub: SUBJECT },
      });
    }
    // Journaled: subscribing (once per endpoint), never the endpoint or a key.
    expect(entries.map((e) => `${e.op} ${e.outcome}`)).toEqual([
      'push subscribed',
      'push subscribed',
    ]);
    for (const e of entries) {
      expect(JSON.stringify(e)).not.toContain(phone.id);
      expect(JSON.stringify(e)).not.toContain(phone.json.keys.auth);
    }
  });

  it('drops a subscription the push service says has ended (404, 410), journaled once', async () => {
    const kept = service.subscriber();
    const gone = service.subscriber();
    await subscribe(kept.json);
    const id = ((await subscribe(gone.json)).body as { id: string }).id;
    service.answer = (who) => (who === gone.id ? 410 : 201);
    const result = await send([bell()]);
    expect(result).toMatchObject({
      ok: true,
      detail: 'to 1 browser; 1 ended subscription dropped',
    });
    expect((await store.push.list()).map((s) => s.id)).not.toContain(id);
    expect(entries.filter((e) => e.outcome === 'dropped')).toMatchObject([
      { op: 'push', target: `subscription ${id}`, status: 410 },
    ]);
    expect(service.hits.get(gone.id)).toBe(1);
    await send([bell()]);
    expect(service.hits.get(gone.id)).toBe(1);
    expect(entries.filter((e) => e.outcome === 'dropped')).toHaveLength(1);
    // The last one gone: nobody got it, and that is a failure.
    service.answer = () => 404;
    expect(await send([bell()])).toMatchObject({
      ok: false,
      why: 'every subscribed browser has gone (1 subscription dropped)',
    });
    expect(await store.push.list()).toEqual([]);
  });

  it('retries a 5xx as other channels do, not a 4xx, and never names the endpoint', async () => {
    const flaky = service.subscriber();
    await subscribe(flaky.json);
    let tries = 0;
    service.answer = () => (++tries < 3 ? 503 : 201);
    expect(await send([bell()])).toMatchObject({ ok: true, tries: 3 });
    service.answer = () => 403;
    tries = 0;
    const refused = await send([bell()]);
    expect(refused).toMatchObject({ ok: false, status: 403, tries: 1 });
    if (!refused.ok) {
      expect(refused.why).toMatch(/^1 of 1 browser not reached \(0 reached\): answered 403/);
      expect(refused.why).not.toContain(flaky.id);
    }
  });

  it('says so when no browser is subscribed, or push is off', async () => {
    expect(await send([bell()])).toMatchObject({
      ok: false,
      why: 'no browser is subscribed (the board page: Notify this browser)',
    });
    settings = { ...settings, subject: null };
    expect(await send([bell()])).toMatchObject({
      ok: false,
      why: expect.stringMatching(/push.subject/),
    });
    for (const answer of [
      await push.publicKey(),
      await subscribe(service.subscriber().json),
      await push.unsubscribe(BOARD_WHO, 'x'),
    ])
      expect(answer).toMatchObject({
        status: 409,
        body: { detail: expect.stringMatching(/push.subject/) },
      });
  });

  it('takes only subscriptions it can use: https: endpoints, P-256 keys, 16-byte secrets, a bound', async () => {
    const s = service.subscriber();
    settings = { ...settings, allowHttpEndpoints: false };
    const http = await subscribe(s.json);
    expect(http).toMatchObject({
      status: 422,
      body: { detail: [{ loc: ['body', 'endpoint'], msg: expect.stringMatching(/https:/) }] },
    });
    expect(JSON.stringify(http.body)).not.toContain(s.id);
    const https = { ...s.json, endpoint: `https://push.example/send/${s.id}` };
    expect((await subscribe(https)).status).toBe(200);
    const badKeys = await subscribe({
      endpoint: 'https://push.example/send/other',
      keys: { p256dh: `A${s.json.keys.p256dh.slice(1)}`, auth: 'c2hvcnQ' },
    });
    expect(
      (badKeys.body as { detail: { loc: string[] }[] }).detail.map((d) => d.loc.join('.')),
    ).toEqual(['body.keys.p256dh', 'body.keys.auth']);
    for (const n of [2, 3])
      expect(
        (await subscribe({ ...https, endpoint: `https://push.example/send/${n}` })).status,
      ).toBe(200);
    expect(await subscribe({ ...https, endpoint: 'https://push.example/send/4' })).toMatchObject({
      status: 409,
      body: { detail: expect.stringMatching(/at most 3/) },
    });
    // A known endpoint still renews (the bound counts subscriptions, not requests).
    expect((await subscribe(https)).status).toBe(200);
    const id = ((await subscribe(https)).body as { id: string }).id;
    expect(await push.unsubscribe(BOARD_WHO, id)).toEqual({ status: 200, body: { id } });
    expect((await push.unsubscribe(BOARD_WHO, id)).status).toBe(404);
  });
});

describe('WebPush.renew: the service worker replaces a subscription its push service renewed', () => {
  it("takes the old subscription's auth secret as proof, checks the new one, and journals it", async () => {
    const entries: JournalEntry[] = [];
    const clock = new ManualClock(T0);
    const journal = new Journal(
      clock,
      new EventHub(),
      {
        append: async (e) => {
          entries.push(e);
        },
        remove: async () => undefined,
      },
      [],
    );
    const store = new MemoryStore();
    const settings: PushSettings = {
      subject: SUBJECT,
      allowHttpEndpoints: false,
      allowPrivateEndpoints: false,
      maxSubscriptions: 1,
    };
    const push = new WebPush({ table: store.push, settings: () => settings, clock, journal });
    const keys = new PushService(SUBJECT).subscriber().json.keys;
    const old = { endpoint: 'https://push.example/send/old', keys };
    const next = {
      endpoint: 'https://push.example/send/new',
      keys: { ...keys, auth: 'bmV3LWF1dGgtc2VjcmV0MQ' },
    };
    const id = ((await push.subscribe(BOARD_WHO, old)).body as { id: string }).id;
    for (const [who, auth] of [
      [id, 'AAAAAAAAAAAAAAAAAAAAAA'],
      ['nosuch', keys.auth],
    ] as const)
      expect(await push.renew(who, auth, next)).toMatchObject({ status: 404 });
    expect(await push.renew(id, keys.auth, { ...next, endpoint: 'https://[::1]/x' })).toMatchObject(
      {
        status: 422,
        body: {
          detail: [
            { loc: ['body', 'subscription', 'endpoint'], msg: expect.stringMatching(/loopback/) },
          ],
        },
      },
    );
    // At the bound (max 1): the old one makes room for the new one.
    const renewed = await push.renew(id, keys.auth, next);
    expect(renewed).toMatchObject({ status: 200, body: { id: expect.any(String) } });
    expect((await store.push.list()).map((s) => s.endpoint)).toEqual([next.endpoint]);
    expect(entries.map((e) => `${e.who} ${e.outcome}`)).toEqual([
      'board subscribed',
      'anonymous renewed',
    ]);
    // The old id is gone, and the new one answers only to its own auth secret.
    const newId = (renewed.body as { id: string }).id;
    expect((await push.renew(id, keys.auth, old)).status).toBe(404);
    expect((await push.renew(newId, keys.auth, old)).status).toBe(404);
    expect((await push.renew(newId, next.keys.auth, old)).status).toBe(200);
  });
});

describe('the local push service checks what a real one does', () => {
  it('refuses a VAPID header signed by another key, for another origin or subject, or too long-lived', () => {
    const keys = webpush.generateVAPIDKeys();
    const other = webpush.generateVAPIDKeys();
    const origin = 'http://127.0.0.1:9';
    const header = (aud = origin, sub = SUBJECT, exp?: number) =>
      webpush.getVapidHeaders(aud, sub, keys.publicKey, keys.privateKey, 'aes128gcm', exp)
        .Authorization;
    expect(checkVapid(header(), origin, SUBJECT).key).toBe(keys.publicKey);
    const forged = header().replace(keys.publicKey, other.publicKey);
    expect(() => checkVapid(forged, origin, SUBJECT)).toThrow(/signature/);
    expect(() => checkVapid(header('http://127.0.0.1:10'), origin, SUBJECT)).toThrow(/aud/);
    expect(() => checkVapid(header(origin, 'mailto:x@y.z'), origin, SUBJECT)).toThrow(/sub/);
    expect(() => checkVapid(header(), origin, SUBJECT, Date.now() - 25 * 3600_000)).toThrow(/exp/);
  });

  it("decrypts only with the subscriber's own private key and auth secret", () => {
    const ecdh = createECDH('prime256v1');
    ecdh.generateKeys();
    const auth = randomBytes(16);
    const sealed = encryptPush(Buffer.from('{"title":"t"}'), ecdh.getPublicKey(), auth);
    expect(decryptPush(sealed, { ecdh, auth }).toString()).toBe('{"title":"t"}');
    expect(() => decryptPush(sealed, { ecdh, auth: randomBytes(16) })).toThrow();
  });
});
