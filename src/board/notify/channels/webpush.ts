import type { OutgoingMessage } from '../event.js';
import { asIs, linkPart, oneLine } from '../markup.js';
import { fitText } from '../render.js';
import { type ChannelKind, ChannelUrlError, PUSH_URGENCIES, type PushUrgency } from './types.js';
import { intParam, param } from './url-parts.js';

/**
 * Bytes of the JSON payload at most: push services take about 4 KB of ciphertext (RFC 8291's
 * record, the aes128gcm header and padding included), so the plain text stays well below.
 */
export const PAYLOAD_MAX = 3072;
/** A body cut shorter than this is left out. */
const CUT_MIN = 20;
/** Characters of a title, machine name or session kept. */
const FIELD_MAX = 200;
/** How long a push service keeps a message for a browser that is offline (seconds). */
export const TTL_DEFAULT = 86_400;
/** RFC 8030 leaves the bound to the push service; 28 days is what the common ones keep. */
const TTL_MAX = 2_419_200;

/** What a browser's service worker gets (docs/notify.md): every field plain text or null. */
export interface PushPayload {
  title: string;
  body: string;
  machine: string | null;
  session: string | null;
  /** The board's page: absolute with public_url, else a path the service worker resolves. */
  url: string;
}

/** One field of a machine's text: on one line, cut to FIELD_MAX characters. */
function field(text: string): string {
  return fitText(oneLine(text), FIELD_MAX);
}

/** The payload of one message, its JSON at most PAYLOAD_MAX bytes (the body is cut first). */
export function pushPayload(message: OutgoingMessage): string {
  const machines = [...new Set(message.events.map((e) => e.machine))].filter((m) => m !== '');
  const machine =
    machines.length === 1 && message.events.every((e) => e.machine !== '')
      ? (machines[0] ?? null)
      : null;
  const sessions = [
    ...new Set(message.events.flatMap((e) => (e.session === undefined ? [] : [e.session]))),
  ];
  const session = machine !== null && sessions.length === 1 ? (sessions[0] ?? null) : null;
  const first = message.events[0];
  const url =
    machine === null
      ? (message.boardUrl ?? '/')
      : (first?.url ?? `${message.boardUrl?.replace(/\/$/, '') ?? ''}/?q=${linkPart(machine)}`);
  // The board's address closes the text of every message; here it is the `url`.
  let body = message.text;
  if (message.boardUrl !== null && body.endsWith(`\n${message.boardUrl}`))
    body = body.slice(0, -message.boardUrl.length - 1);
  const payload: PushPayload = {
    title: field(message.title),
    body,
    machine: machine === null ? null : field(machine),
    session: session === null ? null : field(session),
    url,
  };
  // The body is cut (by characters, in steps) until the whole is within PAYLOAD_MAX bytes.
  const bytes = (text: string) => Buffer.byteLength(JSON.stringify(text));
  const room = PAYLOAD_MAX - Buffer.byteLength(JSON.stringify({ ...payload, body: '' })) + 2;
  if (bytes(payload.body) > room) {
    const full = payload.body;
    let keep = Math.floor((full.length * room) / bytes(full));
    let cut = fitText(full, keep);
    while (keep > CUT_MIN && bytes(cut) > room) {
      keep = Math.floor(keep * 0.9);
      cut = fitText(full, keep);
    }
    payload.body = keep > CUT_MIN ? cut : '';
  }
  const json = JSON.stringify(payload);
  return json;
}

/**
 * webpush://[?ttl=SECONDS&urgency=very-low|low|normal|high] — each message goes to every browser
 * subscribed to the board (POST /api/push/subscriptions), encrypted for it (RFC 8291,
 * aes128gcm) and signed with the board's VAPID key (RFC 8292). `push.subject` in board.yaml
 * must be set. Defaults: ttl 86400 (a phone that is off for the night still gets it) and
 * urgency high (a bell is worth waking a phone for).
 */
export const webpush: ChannelKind<'webpush'> = {
  kind: 'webpush',
  schemes: ['webpush'],
  parse(url) {
    if (url.host !== '' || url.username !== '' || (url.pathname !== '' && url.pathname !== '/'))
      throw new ChannelUrlError(
        'webpush:// takes no host or path: it sends to every browser subscribed to the board',
      );
    const ttl = intParam(url, 'ttl', 0, TTL_MAX) ?? TTL_DEFAULT;
    const urgencyParam = param(url, 'urgency');
    const urgency = (
      urgencyParam === null || urgencyParam === '' ? 'high' : urgencyParam
    ) as PushUrgency;
    if (!PUSH_URGENCIES.includes(urgency))
      throw new ChannelUrlError(`urgency must be one of ${PUSH_URGENCIES.join(', ')}`);
    return {
      kind: 'webpush',
      // JSON data, shown by the browser as plain text.
      escape: asIs,
      secrets: [],
      build(message) {
        return { type: 'push', push: { payload: pushPayload(message), ttl, urgency } };
      },
    };
  },
};
