import { lookup as systemLookup } from 'node:dns';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PushService, type Subscriber } from '../../../harness/push-service.js';
import { ManualClock } from '../../shared/clock.js';
import { EventHub } from '../domain/events.js';
import { Journal } from '../domain/journal.js';
import { BOARD_WHO } from '../domain/who.js';
import { MemoryStore } from '../store/memory/state-store.js';
import { parseChannelUrl } from './channels/index.js';
import { deliver, type SendResult } from './deliver.js';
import type { NotifyEvent } from './event.js';
import { WebPush } from './push.js';
import type { PushSettings } from './push-config.js';
import { addressRefusal, type Lookup } from './push-endpoint.js';
import { renderMessage } from './render.js';

const SUBJECT = 'mailto:ops@example.org';

describe('addressRefusal: the ranges a push service is never at', () => {
  it('names loopback, private, link-local, CGNAT, ULA, metadata and the special ranges', () => {
    const refused: [string, RegExp][] = [
      ['127.0.0.1', /loopback/],
      ['127.255.255.254', /loopback/],
      ['::1', /loopback/],
      ['[::1]', /loopback/],
      ['::ffff:127.0.0.1', /loopback/],
      ['[::ffff:7f00:1]', /loopback/],
      ['64:ff9b::7f00:1', /loopback/],
      ['0.0.0.0', /this network/],
      ['0.1.2.3', /this network/],
      ['::', /unspecified/],
      ['10.1.2.3', /private/],
      ['172.16.0.1', /private/],
      ['172.31.255.255', /private/],
      ['192.168.1.1', /private/],
      ['::ffff:10.0.0.1', /private/],
      ['169.254.169.254', /cloud metadata/],
      ['::ffff:169.254.169.254', /cloud metadata/],
      ['fd00:ec2::254', /cloud metadata/],
      ['100.64.0.1', /carrier-grade NAT/],
      ['100.127.255.255', /carrier-grade NAT/],
      ['fc00::1', /unique local/],
      ['fe80::1', /link-local/],
      ['fec0::1', /site-local/],
      ['224.0.0.1', /multicast/],
      ['ff02::1', /multicast/],
      ['255.255.255.255', /broadcast/],
      ['192.0.2.1', /documentation/],
      ['2001:db8::1', /documentation/],
      ['198.18.0.1', /benchmarking/],
      ['2002:7f00:1::1', /6to4/],
    ];
    for (const [address, what] of refused) expect(addressRefusal(address), address).toMatch(what);
    for (const address of [
      '8.8.8.8',
      '142.250.74.106',
      '100.128.0.1',
      '172.32.0.1',
      '::ffff:8.8.8.8',
      '64:ff9b::808:808',
      '2607:f8b0:4004:c07::5f',
      '2a00:1450:4001:82a::200a',
    ])
      expect(addressRefusal(address), address).toBeNull();
  });
});

describe('WebPush: endpoints at internal addresses are refused at subscribe and at connect', () => {
  const service = new PushService(SUBJECT);
  /** What the names the test controls resolve to (others: the system's resolver). */
  const names = new Map<string, string>();
  /** The names the board resolved, in order. */
  const asked: string[] = [];
  const lookup: Lookup = (hostname, options, callback) => {
    asked.push(hostname);
    const address = names.get(hostname);
    if (address === undefined) systemLookup(hostname, options, callback);
    else callback(null, [{ address, family: address.includes(':') ? 6 : 4 }]);
  };
  let settings: PushSettings;
  let push: WebPush;
  let store: MemoryStore;
  const channel = parseChannelUrl('webpush://');
  const bell: NotifyEvent = {
    event: 'bell',
    machine: 'lab3',
    at: '2026-05-01T12:00:00.000Z',
    session: 'claude-7',
    why: 'attention',
    message: 'needs you',
  };
  const send = (): Promise<SendResult> =>
    deliver(channel, renderMessage([bell], null, null, channel.escape), {
      timeoutMs: 5000,
      backoffMs: [1, 1],
      push: { channel: 'phone', port: async () => push },
    });
  const subscribe = (endpoint: string, who: Subscriber) =>
    push.subscribe(BOARD_WHO, { ...who.json, endpoint });

  beforeAll(() => service.start());
  afterAll(() => service.stop());
  beforeEach(() => {
    names.clear();
    asked.length = 0;
    settings = {
      subject: SUBJECT,
      allowHttpEndpoints: true,
      allowPrivateEndpoints: false,
      maxSubscriptions: 100,
    };
    store = new MemoryStore();
    const clock = new ManualClock(Date.parse('2026-05-01T12:00:00Z'));
    const journal = new Journal(
      clock,
      new EventHub(),
      { append: async () => undefined, remove: async () => undefined },
      [],
    );
    push = new WebPush({ table: store.push, settings: () => settings, clock, journal, lookup });
  });

  it('refuses every form of an internal host at subscribe (422 naming why), and takes a name that does not resolve', async () => {
    const who = service.subscriber();
    names.set('inside.example', '192.168.7.20');
    names.set('public.example', '93.184.215.14');
    const refused: [string, RegExp][] = [
      ['https://127.0.0.1:19445', /loopback/],
      ['https://localhost:19445', /loopback/],
      ['https://[::1]:19445', /loopback/],
      ['https://2130706433:19445', /loopback/],
      ['https://[::ffff:127.0.0.1]', /loopback/],
      ['https://0x7f.1', /loopback/],
      ['https://169.254.169.254', /cloud metadata/],
      ['https://[fd00:ec2::254]', /cloud metadata/],
      ['https://10.0.0.8', /private/],
      ['https://100.64.1.1', /carrier-grade NAT/],
      ['https://0.0.0.0', /this network/],
      ['https://[fe80::1]', /link-local/],
      ['https://inside.example', /private/],
    ];
    for (const [origin, what] of refused) {
      const answer = await subscribe(`${origin}/push/${who.id}`, who);
      expect(answer, origin).toMatchObject({
        status: 422,
        body: {
          detail: [
            {
              loc: ['body', 'endpoint'],
              msg: expect.stringMatching(what),
              type: 'value_error',
            },
          ],
        },
      });
      expect(JSON.stringify(answer.body)).toMatch(/push\.allow_private_endpoints/);
      expect(JSON.stringify(answer.body)).not.toContain(who.id);
    }
    expect(await store.push.list()).toEqual([]);
    // Checked when it is used: a name nobody resolves now, and a public one.
    for (const origin of ['https://not-yet.invalid', 'https://public.example'])
      expect((await subscribe(`${origin}/push/${who.id}`, who)).status, origin).toBe(200);
    // The setting lifts it (a local push service in tests).
    settings = { ...settings, allowPrivateEndpoints: true };
    expect((await subscribe(`https://127.0.0.1:19445/push/${who.id}`, who)).status).toBe(200);
  });

  it('checks again at connect, and connects to the address it checked: a name that moved inward is never reached', async () => {
    const moved = service.subscriber();
    names.set('moving.example', '93.184.215.14');
    const endpoint = `http://moving.example:${service.port}/push/${moved.id}`;
    expect((await subscribe(endpoint, moved)).status).toBe(200);
    // Between subscribe and the bell, the name's DNS now answers the board's own loopback.
    names.set('moving.example', '127.0.0.1');
    const refused = await send();
    expect(refused).toMatchObject({ ok: false, status: null });
    const why = refused.ok ? '' : refused.why;
    expect(why).toMatch(/^1 of 1 browser not reached \(0 reached\): the push service's address/);
    expect(why).toMatch(/loopback/);
    expect(why).not.toContain('127.0.0.1');
    expect(why).not.toContain(String(service.port));
    expect(service.hits.get(moved.id)).toBeUndefined();
    // Resolved at subscribe, and again by the connection itself (no address kept from before).
    expect(asked).toEqual(['moving.example', 'moving.example']);
  });

  it('refuses at connect what was taken before the setting was turned off: localhost (the system resolver) and 127.0.0.1', async () => {
    settings = { ...settings, allowPrivateEndpoints: true };
    const byName = service.subscriber();
    const byAddress = service.subscriber();
    expect(
      (await subscribe(`http://localhost:${service.port}/push/${byName.id}`, byName)).status,
    ).toBe(200);
    expect((await subscribe(byAddress.json.endpoint, byAddress)).status).toBe(200);
    settings = { ...settings, allowPrivateEndpoints: false };
    const refused = await send();
    expect(refused).toMatchObject({
      ok: false,
      why: expect.stringMatching(/^2 of 2 browsers not reached \(0 reached\): .*loopback/),
    });
    expect(service.hits.get(byName.id)).toBeUndefined();
    expect(service.hits.get(byAddress.id)).toBeUndefined();
  });

  it("keeps the push service's status for the journal, never its body or its address", async () => {
    settings = { ...settings, allowPrivateEndpoints: true };
    const answer = 'SECRET-INTERNAL-PAGE '.repeat(30);
    const inside: Server = createServer((_request, response) => {
      response.writeHead(500, { 'content-type': 'text/plain' });
      response.end(answer);
    });
    await new Promise<void>((resolve) => inside.listen(0, '127.0.0.1', resolve));
    const port = (inside.address() as AddressInfo).port;
    const who = service.subscriber();
    try {
      await subscribe(`http://127.0.0.1:${port}/push/${who.id}`, who);
      const failed = await send();
      expect(failed).toMatchObject({ ok: false, status: 500 });
      const why = failed.ok ? '' : failed.why;
      expect(why).toMatch(/answered 500 \(after 3 tries\)$/);
      expect(why).not.toContain('SECRET');
    } finally {
      await new Promise((resolve) => inside.close(resolve));
    }
    // Nothing listens there now: the error's code, not the address and port it was sent to.
    const refused = await send();
    const why = refused.ok ? '' : refused.why;
    expect(why).toMatch(/could not reach the push service \(ECONNREFUSED\)/);
    expect(why).not.toContain('127.0.0.1');
    expect(why).not.toContain(String(port));
  });
});
