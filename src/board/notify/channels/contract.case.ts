import { createHmac } from 'node:crypto';
import { expect } from 'vitest';
import type { NotifyEvent } from '../event.js';
import type { Received } from './receivers.js';
import type { ChannelOptions, Kind } from './types.js';

/**
 * One contract, every HTTP kind: a URL pointed at a local receiver, one message delivered, and
 * the request checked against what the real service's API expects (named per case). Email has
 * its own test against a real SMTP server (email.test.ts).
 */
export interface Case {
  kind: Kind;
  /** The channel URL, for a receiver at `host` (127.0.0.1:port). */
  url(host: string): string;
  options?: ChannelOptions;
  /** The API reference the check follows. */
  reference: string;
  check(r: Received, text: string): void;
  /** Secrets of the URL that must not appear in an error. */
  secrets: string[];
  /** What people are shown of a message: its text, and its title where the service shows one. */
  shown(r: Received): string[];
  /** Machine text arrived escaped the way this service reads its text (docs/notify.md). */
  inert(r: Received): void;
}

const json = (r: Received) => JSON.parse(r.body) as Record<string, unknown>;
const field = (r: Received, name: string) => String(json(r)[name]);

/** Markup, mentions and line breaks a machine could put into its name, a session or a bell. */
export const HOSTILE =
  '<!channel> <https://evil|Open the board> <users/all> @everyone @here *bold* [x](https://evil) </b><a href=x> text\n✖ web1 is down\r✖ 2\u2028✖ 3\u2029✖ 4\u0085✖ 5\v✖ 6\f✖ 7';
/** Every character that starts a new line for some reader. */
export const LINE_BREAKS = /\r\n|[\n\r\v\f\u0085\u2028\u2029]/;

/** No raw mention of everyone; every `<` and `*` behind a backslash (Markdown kinds). */
function markdownInert(text: string): void {
  expect(text).not.toMatch(/@(everyone|here)/);
  expect(text).not.toMatch(/(^|[^\\])[<*[]/);
}

/** No Slack-style `<…>` (link, mention) survives: Slack and Google Chat. */
function noAngleMarkup(text: string): void {
  for (const raw of ['<!channel>', '<https://evil|', '<users/all>', '</b>', '<a href'])
    expect(text).not.toContain(raw);
}

export const CASES: Case[] = [
  {
    kind: 'webhook',
    url: (h) => `http://${h}/hooks/panoptes?key=hook-query-secret-1`,
    options: { secret: 'hmac-secret-0123456789' },
    reference: 'docs/notify.md (the generic webhook)',
    shown: (r) => [field(r, 'text')],
    inert(r) {
      // The events array is data: it keeps the machine's text as it came.
      const kept = (json(r).events as Record<string, unknown>[]).flatMap((e) => [
        ...['session', 'message', 'container', 'device', 'cert_changed']
          .filter((k) => k in e)
          .map((k) => e[k]),
        ...((e.runners as { detail: string }[] | undefined) ?? []).map((x) => x.detail),
      ]);
      expect(kept.length).toBeGreaterThanOrEqual(2);
      for (const text of kept) expect(text).toBe(HOSTILE);
    },
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
    shown: (r) => [r.body],
    inert(r) {
      // No Markdown header: ntfy shows the body as plain text. The Title header is ASCII only.
      expect(r.headers.markdown ?? r.headers['x-markdown']).toBeUndefined();
      expect(String(r.headers.title)).toMatch(/^[\x20-\x7e]+$/);
    },
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
    shown: (r) => [field(r, 'text')],
    inert(r) {
      noAngleMarkup(field(r, 'text'));
      expect(field(r, 'text')).toContain('&lt;!channel&gt; &lt;https://evil|Open the board&gt;');
    },
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
    shown: (r) => [field(r, 'text')],
    inert: (r) => noAngleMarkup(field(r, 'text')),
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
    shown: (r) => [field(r, 'content')],
    inert(r) {
      expect(json(r).allowed_mentions).toEqual({ parse: [] });
      markdownInert(field(r, 'content'));
    },
    secrets: ['discordtokensecret42'],
    check(r, text) {
      expect(r.method).toBe('POST');
      expect(r.path).toBe('/api/webhooks/123456789012345678/discordtokensecret42');
      expect(json(r)).toEqual({ content: text, allowed_mentions: { parse: [] } });
    },
  },
  {
    kind: 'teams',
    url: (h) =>
      `teams://11111111-2222-4333-8444-555555555555@66666666-7777-4888-9999-000000000000/teamssecretpart0123456789abcdef/aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee?host=${h}&scheme=http`,
    reference:
      'https://learn.microsoft.com/en-us/microsoftteams/platform/webhooks-and-connectors/how-to/connectors-using (POST a MessageCard to the incoming webhook URL)',
    shown: (r) => [field(r, 'text'), field(r, 'title')],
    inert(r) {
      // Markdown and some HTML in the text; the title is plain text.
      expect(field(r, 'text')).not.toContain('<');
      expect(field(r, 'text')).toContain('\\*bold\\*');
      expect(field(r, 'text')).toContain('\\[x\\](https://evil)');
    },
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
    shown: (r) => [field(r, 'text')],
    inert: (r) => markdownInert(field(r, 'text')),
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
    shown: (r) => [field(r, 'text')],
    inert(r) {
      noAngleMarkup(field(r, 'text'));
      expect(field(r, 'text')).not.toContain(' *bold* ');
      expect(field(r, 'text')).not.toContain('[x](https://evil)');
    },
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
    shown: (r) => [field(r, 'text')],
    inert(r) {
      // No parse_mode: Telegram shows the text as it is; only @name mentions need muting.
      expect(json(r).parse_mode).toBeUndefined();
      expect(field(r, 'text')).not.toMatch(/@(everyone|here)/);
    },
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
    shown: (r) => [
      String(new URLSearchParams(r.body).get('message')),
      String(new URLSearchParams(r.body).get('title')),
    ],
    inert(r) {
      expect(new URLSearchParams(r.body).has('html')).toBe(false);
    },
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
    shown: (r) => [field(r, 'message'), field(r, 'title')],
    inert(r) {
      expect(json(r).extras).toBeUndefined();
    },
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
    shown: (r) => [field(r, 'body')],
    inert(r) {
      // Plain body, no formatted_body; m.mentions says it mentions nobody (no @room from the body).
      expect(json(r).formatted_body).toBeUndefined();
      expect(json(r)['m.mentions']).toEqual({});
      expect(field(r, 'body')).not.toMatch(/@(everyone|here)/);
    },
    secrets: ['syt_matrixAccessSecret42'],
    check(r, text) {
      expect(r.method).toBe('PUT');
      expect(decodeURIComponent(r.path)).toMatch(
        /^\/_matrix\/client\/v3\/rooms\/!roomid:example\.org\/send\/m\.room\.message\/[0-9a-f-]{36}$/,
      );
      expect(r.headers.authorization).toBe('Bearer syt_matrixAccessSecret42');
      expect(json(r)).toEqual({ msgtype: 'm.text', body: text, 'm.mentions': {} });
    },
  },
];

export const EVENT: NotifyEvent = {
  event: 'down',
  machine: 'web1',
  at: '2026-01-01T00:00:00.000Z',
  state: 'down',
  previous: 'up',
  since: '2026-01-01T00:00:00.000Z',
  reason: 'refused',
};
