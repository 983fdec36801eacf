import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { deliver } from '../deliver.js';
import type { NotifyEvent } from '../event.js';
import { renderMessage } from '../render.js';
import { CASES, EVENT, HOSTILE, LINE_BREAKS } from './contract.case.js';
import { CHANNEL_KINDS, parseChannelUrl } from './index.js';
import { type Received, Receiver } from './receivers.js';

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
      // email and webpush have their own tests (a real SMTP server, a real push protocol).
      CHANNEL_KINDS.map((k) => k.kind).filter(
        (k) => k !== 'email' && k !== 'webpush' && !covered.has(k),
      ),
    ).toEqual([]);
  });

  for (const c of CASES) {
    describe(`${c.kind} (${c.reference.split(' ')[0]})`, () => {
      it('sends what the service expects', async () => {
        const channel = parseChannelUrl(c.url(receiver.host), c.options);
        expect(channel.kind).toBe(c.kind);
        const message = renderMessage([EVENT], null, 'https://board.example', channel.escape);
        const result = await deliver(channel, message, { timeoutMs: 5000 });
        expect(result).toMatchObject({ ok: true, tries: receiver.requests.length });
        expect(receiver.requests.length).toBeGreaterThan(0);
        c.check(receiver.requests[0] as Received, message.text);
      });

      it('shows machine text as text: no markup, no mention, no line of its own', async () => {
        const channel = parseChannelUrl(c.url(receiver.host), c.options);
        const bell: NotifyEvent = {
          event: 'bell',
          machine: HOSTILE,
          at: EVENT.at,
          session: HOSTILE,
          why: 'attention',
          message: HOSTILE,
        };
        const message = renderMessage([bell], null, null, channel.escape);
        expect(await deliver(channel, message, { timeoutMs: 5000 })).toMatchObject({ ok: true });
        const r = receiver.requests[0] as Received;
        for (const shown of c.shown(r)) {
          expect(shown).toContain('text⏎✖ web1 is down⏎✖ 2');
          for (const line of shown.split(LINE_BREAKS)) expect(line.trimStart()).not.toMatch(/^✖/);
        }
        c.inert(r);
      });

      it("shows a container's and a disk's name as text: no markup, no line of its own", async () => {
        const channel = parseChannelUrl(c.url(receiver.host), c.options);
        const at = EVENT.at;
        const events: NotifyEvent[] = [
          { event: 'container', machine: 'web1', at, container: HOSTILE, problem: 'stopped' },
          { event: 'disk_health', machine: 'web1', at, device: HOSTILE, since: at, reminder: 1 },
          { event: 'container', machine: 'web1', at, container: HOSTILE, recovered: true },
        ];
        const message = renderMessage(events, null, null, channel.escape);
        expect(await deliver(channel, message, { timeoutMs: 5000 })).toMatchObject({ ok: true });
        const r = receiver.requests[0] as Received;
        // The text (listed first) carries the names; a title only counts the events.
        expect(c.shown(r)[0]).toContain('text⏎✖ web1 is down⏎✖ 2');
        for (const shown of c.shown(r)) {
          // Each event's line is the board's own: none starts where the machine's text breaks.
          for (const line of shown.split(LINE_BREAKS))
            if (/^\s*[✖▲]/.test(line))
              expect(line.trimStart()).toMatch(/^[✖▲] web1: (container|disk) /);
        }
        c.inert(r);
      });

      it("shows a check's failing runners' detail and a certificate change as text", async () => {
        const channel = parseChannelUrl(c.url(receiver.host), c.options);
        const at = EVENT.at;
        const runners = [{ machine: 'probe1', detail: HOSTILE }];
        const base = { event: 'check', machine: '', at, check: 'api-x', runners } as const;
        const events: NotifyEvent[] = [
          { ...base, state: 'down', previous: 'up' },
          { ...base, state: 'down', previous: 'down', cert_changed: HOSTILE },
        ];
        const message = renderMessage(events, null, null, channel.escape);
        expect(await deliver(channel, message, { timeoutMs: 5000 })).toMatchObject({ ok: true });
        const r = receiver.requests[0] as Received;
        expect(c.shown(r)[0]).toContain('text⏎✖ web1 is down⏎✖ 2');
        for (const shown of c.shown(r)) {
          for (const line of shown.split(LINE_BREAKS))
            if (/^\s*[✖▲⚠]/.test(line)) expect(line.trimStart()).toMatch(/^[✖▲⚠] check api-x/);
        }
        c.inert(r);
      });

      it('retries a 5xx, not a 4xx, and never names a secret in the reason', async () => {
        const channel = parseChannelUrl(c.url(receiver.host), c.options);
        const message = renderMessage([EVENT], null, null, channel.escape);
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

  it("keeps a template's own text and escapes only what fills its placeholders", () => {
    const slack = parseChannelUrl('slack://T0/B0/X0');
    const down: NotifyEvent = { ...EVENT, machine: 'db<!here>', reason: HOSTILE };
    const template = '<!here> *{{machine}}*: {{reason}} ({{text}})';
    const text = renderMessage([down], template, null, slack.escape).text;
    expect(text.startsWith('<!here> *db&lt;!here&gt;*: &lt;!channel&gt;')).toBe(true);
    expect(text).toContain('(✖ db&lt;!here&gt; is down: &lt;!channel&gt;');
    expect(text.split(LINE_BREAKS)).toHaveLength(1);
    const discord = parseChannelUrl('discord://t@1');
    const plain = renderMessage([down], '**{{machine}}** {{reason}}', null, discord.escape).text;
    expect(plain.startsWith('**db\\<!here\\>** \\<!channel\\>')).toBe(true);
    // The board's link stays a working link (its machine part is percent-encoded).
    const url = 'https://board.example/#/?q=db%3C!here%3E%5F1';
    expect(renderMessage([{ ...down, url }], '{{url}}', null, discord.escape).text).toBe(url);
  });

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
