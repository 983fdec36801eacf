import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { deliver } from '../deliver.js';
import type { NotifyEvent } from '../event.js';
import { renderMessage } from '../render.js';
import { CHANNEL_KINDS, parseChannelUrl } from './index.js';
import { type Received, Receiver } from './receivers.js';
import type { ChannelOptions, Kind } from './types.js';

/**
 * One contract, every HTTP kind: a URL pointed at a local receiver, one message delivered, and
 * the request checked against what the real service's API expects (named per case). Email has
 * its own test against a real SMTP server (email.test.ts).
 */
interface Case {
  kind: Kind;
  /** The channel URL, for a receiver at `host` (127.0.0.1:port). */
  url(host: string): string;
  options?: ChannelOptions;
  /** The API reference the check follows. */
  reference: string;
  check(r: Received, text: string): void;
  /** Secrets of the URL that must not appear in an error. */
  secrets: string[];
}

const json = (r: Received) => JSON.parse(r.body) as Record<string, unknown>;

const CASES: Case[] = [
  {
    kind: 'webhook',
    url: (h) => `http://${h}/hooks/panoptes?key=hook-query-secret-1`,
    options: { secret: 'hmac-secret-0123456789' },
    reference: 'docs/notify.md (the generic webhook)',
    secrets: ['hook-query-secret-1', 'hmac-secret-0123456789'],
    check(r, text) {
      expect(r.method).toBe('POST');
      expect(r.path).toBe('/hooks/panoptes');
      expect(r.query.get('key')).toBe('hook-query-secret-1');
      expect(r.headers['content-type']).toBe('application/json');
      const body = json(r);
      expect(body.text).toBe(text);
      expect(body.board_url).toBe('https://board.example');
      expect(body.events).toMatchObject([{ event: 'down', machine: 'web1', reason: 'refused' }]);
      const mac = createHmac('sha256', 'hmac-secret-0123456789').update(r.body).digest('hex');
      expect(r.headers['x-panoptes-signature']).toBe(`sha256=${mac}`);
    },
  },
  {
    kind: 'ntfy',
    url: (h) =>
      `ntfy://:tk_ntfyaccesstoken42@${h}/panoptes-alerts?scheme=http&priority=4&tags=warning,computer`,
    reference:
      'https://docs.ntfy.sh/publish/ (publish as PUT/POST to /<topic>, headers Title, Priority, Tags, Click; access tokens as Bearer)',
    secrets: ['tk_ntfyaccesstoken42'],
    check(r, text) {
      expect(r.method).toBe('POST');
      expect(r.path).toBe('/panoptes-alerts');
      expect(r.body).toBe(text);
      expect(r.headers.title).toBe('Panoptes: web1 down');
      expect(r.headers.priority).toBe('4');
      expect(r.headers.tags).toBe('warning,computer');
      expect(r.headers.click).toBe('https://board.example');
      expect(r.headers.authorization).toBe('Bearer tk_ntfyaccesstoken42');
    },
  },
  {
    kind: 'slack',
    url: (h) => `slack://T0000SLACK/B0000SLACK/slackwebhooksecret42?host=${h}&scheme=http`,
    reference: 'https://api.slack.com/messaging/webhooks (POST JSON {"text"} to /services/T/B/X)',
    secrets: ['slackwebhooksecret42'],
    check(r, text) {
      expect(r.method).toBe('POST');
      expect(r.path).toBe('/services/T0000SLACK/B0000SLACK/slackwebhooksecret42');
      expect(r.headers['content-type']).toBe('application/json');
      expect(json(r)).toEqual({ text });
    },
  },
  {
    kind: 'slack',
    url: (h) => `slack://xoxb:slackbottokensecret42@C0123CHAN?host=${h}&scheme=http`,
    reference:
      'https://api.slack.com/methods/chat.postMessage (Bearer token, JSON {"channel","text"})',
    secrets: ['slackbottokensecret42'],
    check(r, text) {
      expect(r.path).toBe('/api/chat.postMessage');
      expect(r.headers.authorization).toBe('Bearer xoxb-slackbottokensecret42');
      expect(json(r)).toEqual({ channel: 'C0123CHAN', text });
    },
  },
  {
    kind: 'discord',
    url: (h) => `discord://discordtokensecret42@123456789012345678?host=${h}&scheme=http`,
    reference:
      'https://discord.com/developers/docs/resources/webhook#execute-webhook (POST /api/webhooks/{id}/{token}, JSON {"content"})',
    secrets: ['discordtokensecret42'],
    check(r, text) {
      expect(r.method).toBe('POST');
      expect(r.path).toBe('/api/webhooks/123456789012345678/discordtokensecret42');
      expect(json(r)).toEqual({ content: text });
    },
  },
  {
    kind: 'teams',
    url: (h) =>
      `teams://11111111-2222-4333-8444-555555555555@66666666-7777-4888-9999-000000000000/teamssecretpart0123456789abcdef/aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee?host=${h}&scheme=http`,
    reference:
      'https://learn.microsoft.com/en-us/microsoftteams/platform/webhooks-and-connectors/how-to/connectors-using (POST a MessageCard to the incoming webhook URL)',
    secrets: ['teamssecretpart0123456789abcdef'],
    check(r) {
      expect(r.method).toBe('POST');
      expect(r.path).toBe(
        '/webhookb2/11111111-2222-4333-8444-555555555555@66666666-7777-4888-9999-000000000000/IncomingWebhook/teamssecretpart0123456789abcdef/aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee',
      );
      const card = json(r);
      expect(card['@type']).toBe('MessageCard');
      expect(card['@context']).toBe('http://schema.org/extensions');
      expect(card.title).toBe('Panoptes: web1 down');
      expect(String(card.text)).toContain('web1 is down');
    },
  },
  {
    kind: 'mattermost',
    url: (h) => `mattermost://panoptes@${h}/mattermosthooksecret42/ops-alerts?scheme=http`,
    reference:
      'https://developers.mattermost.com/integrate/webhooks/incoming/ (POST /hooks/{key}, JSON {"text","username","channel"})',
    secrets: ['mattermosthooksecret42'],
    check(r, text) {
      expect(r.path).toBe('/hooks/mattermosthooksecret42');
      expect(json(r)).toEqual({ text, username: 'panoptes', channel: 'ops-alerts' });
    },
  },
  {
    kind: 'googlechat',
    url: (h) =>
      `googlechat://${h}/v1/spaces/AAAASPACE/messages?key=googlekeysecret42&token=googletokensecret42&scheme=http`,
    reference:
      'https://developers.google.com/workspace/chat/quickstart/webhooks (POST JSON {"text"} to the webhook URL with key and token)',
    secrets: ['googlekeysecret42', 'googletokensecret42'],
    check(r, text) {
      expect(r.path).toBe('/v1/spaces/AAAASPACE/messages');
      expect(r.query.get('key')).toBe('googlekeysecret42');
      expect(r.query.get('token')).toBe('googletokensecret42');
      expect(r.query.has('scheme')).toBe(false);
      expect(json(r)).toEqual({ text });
    },
  },
  {
    kind: 'telegram',
    url: (h) =>
      `telegram://110201543:telegramBotSecret42@telegram?chats=@ops,-1001234&host=${h}&scheme=http`,
    reference:
      'https://core.telegram.org/bots/api#sendmessage (POST /bot<token>/sendMessage, JSON {"chat_id","text"})',
    secrets: ['telegramBotSecret42'],
    check(r, text) {
      expect(r.path).toBe('/bot110201543:telegramBotSecret42/sendMessage');
      expect(json(r)).toMatchObject({ chat_id: '@ops', text });
    },
  },
  {
    kind: 'pushover',
    url: (h) =>
      `pushover://shoutrrr:pushoverApiToken42@pushoverUserKey42/?devices=phone&priority=1&host=${h}&scheme=http`,
    reference:
      'https://pushover.net/api (POST /1/messages.json, form token, user, message, title, device, priority)',
    secrets: ['pushoverApiToken42'],
    check(r, text) {
      expect(r.path).toBe('/1/messages.json');
      expect(r.headers['content-type']).toBe('application/x-www-form-urlencoded');
      const form = new URLSearchParams(r.body);
      expect(form.get('token')).toBe('pushoverApiToken42');
      expect(form.get('user')).toBe('pushoverUserKey42');
      expect(form.get('message')).toBe(text);
      expect(form.get('title')).toBe('Panoptes: web1 down');
      expect(form.get('device')).toBe('phone');
      expect(form.get('priority')).toBe('1');
    },
  },
  {
    kind: 'gotify',
    url: (h) => `gotify://${h}/gotify/AgotifySecret42x?priority=8&disabletls=yes`,
    reference:
      'https://gotify.net/api-docs#/message/createMessage (POST /message, X-Gotify-Key, JSON {"title","message","priority"})',
    secrets: ['AgotifySecret42x'],
    check(r, text) {
      expect(r.path).toBe('/gotify/message');
      expect(r.headers['x-gotify-key']).toBe('AgotifySecret42x');
      expect(r.query.has('token')).toBe(false);
      expect(json(r)).toEqual({ title: 'Panoptes: web1 down', message: text, priority: 8 });
    },
  },
  {
    kind: 'matrix',
    url: (h) => `matrix://:syt_matrixAccessSecret42@${h}/?rooms=!roomid:example.org&disableTLS=yes`,
    reference:
      'https://spec.matrix.org/v1.11/client-server-api/#put_matrixclientv3roomsroomidsendeventtypetxnid',
    secrets: ['syt_matrixAccessSecret42'],
    check(r, text) {
      expect(r.method).toBe('PUT');
      expect(decodeURIComponent(r.path)).toMatch(
        /^\/_matrix\/client\/v3\/rooms\/!roomid:example\.org\/send\/m\.room\.message\/[0-9a-f-]{36}$/,
      );
      expect(r.headers.authorization).toBe('Bearer syt_matrixAccessSecret42');
      expect(json(r)).toEqual({ msgtype: 'm.text', body: text });
    },
  },
];

const EVENT: NotifyEvent = {
  event: 'down',
  machine: 'web1',
  at: '2026-01-01T00:00:00.000Z',
  state: 'down',
  previous: 'up',
  since: '2026-01-01T00:00:00.000Z',
  reason: 'refused',
};

describe('channel contract: every kind against a local receiver of its real API', () => {
  const receiver = new Receiver();
  beforeAll(() => receiver.start());
  afterAll(() => receiver.stop());
  beforeEach(() => {
    receiver.requests.length = 0;
    receiver.answer = () => ({ status: 200, body: '{"ok":true}' });
  });

  it('has a case for every HTTP kind', () => {
    const covered = new Set(CASES.map((c) => c.kind));
    expect(
      CHANNEL_KINDS.map((k) => k.kind).filter((k) => k !== 'email' && !covered.has(k)),
    ).toEqual([]);
  });

  for (const c of CASES) {
    describe(`${c.kind} (${c.reference.split(' ')[0]})`, () => {
      it('sends what the service expects', async () => {
        const channel = parseChannelUrl(c.url(receiver.host), c.options);
        expect(channel.kind).toBe(c.kind);
        const message = renderMessage([EVENT], null, 'https://board.example');
        const result = await deliver(channel, message, { timeoutMs: 5000 });
        expect(result).toMatchObject({ ok: true, tries: receiver.requests.length });
        expect(receiver.requests.length).toBeGreaterThan(0);
        c.check(receiver.requests[0] as Received, message.text);
      });

      it('retries a 5xx, not a 4xx, and never names a secret in the reason', async () => {
        const channel = parseChannelUrl(c.url(receiver.host), c.options);
        const message = renderMessage([EVENT], null, null);
        receiver.answer = () => ({ status: 503, body: 'busy' });
        const busy = await deliver(channel, message, { timeoutMs: 5000, backoffMs: [1, 1] });
        expect(busy).toMatchObject({ ok: false, status: 503 });
        const perMessage = receiver.requests.length / 3;
        expect(Number.isInteger(perMessage) && perMessage >= 1).toBe(true);
        receiver.requests.length = 0;
        receiver.answer = () => ({ status: 400, body: `bad ${c.secrets[0]}` });
        const refused = await deliver(channel, message, { timeoutMs: 5000, backoffMs: [1, 1] });
        expect(refused).toMatchObject({ ok: false, status: 400, tries: 1 });
        expect(receiver.requests.length).toBe(1);
        if (!refused.ok) for (const s of c.secrets) expect(refused.why).not.toContain(s);
      });
    });
  }

  it('a URL that does not fit its kind is refused without quoting it', () => {
    for (const url of [
      'discord://@123',
      'telegram://nottoken@telegram?chats=1',
      'matrix://user:pw-secret-xyz@host/?rooms=!a:b',
      'teams://a@b/c/d',
      'ftp://x/y',
      'gotify://gotify.example.org',
      'smtp://host/?from=a@b',
    ]) {
      expect(() => parseChannelUrl(url), url).toThrow();
      try {
        parseChannelUrl(url);
      } catch (error) {
        expect((error as Error).message).not.toContain('pw-secret-xyz');
        expect((error as Error).message).not.toContain(url);
      }
    }
  });
});
