import type { OutgoingMessage } from '../event.js';
import type { Escape } from '../markup.js';

/**
 * The kinds of channel (`kind` in the API): the one list of their names. Each has its module,
 * keyed by its name in `channels/index.ts` (`ChannelModules`), which tsc holds to this list.
 */
export const KINDS = [
  'webhook',
  'ntfy',
  'slack',
  'discord',
  'teams',
  'mattermost',
  'googlechat',
  'telegram',
  'pushover',
  'gotify',
  'matrix',
  'email',
  'webpush',
] as const;
export type Kind = (typeof KINDS)[number];

/** One HTTP request a channel wants sent (deliver.ts sends it, with time-out and retries). */
export interface HttpRequestSpec {
  method: 'POST' | 'PUT';
  url: string;
  headers: Record<string, string>;
  body: string | Buffer;
}

/** One mail a channel wants sent through SMTP (deliver.ts sends it through nodemailer). */
export interface MailSpec {
  host: string;
  port: number;
  /** none: plain; starttls: required; tls: implicit TLS; auto: STARTTLS when offered. */
  encryption: 'none' | 'starttls' | 'tls' | 'auto';
  user: string | null;
  pass: string | null;
  /** PEM certificates to trust besides the system's (self-hosted servers, tests). */
  ca: string | null;
  from: string;
  to: string[];
  subject: string;
  text: string;
}

/** RFC 8030's Urgency header: how eagerly a push service wakes the device. */
export const PUSH_URGENCIES = ['very-low', 'low', 'normal', 'high'] as const;
export type PushUrgency = (typeof PUSH_URGENCIES)[number];

/** One Web Push message, before it is encrypted for each subscribed browser (deliver.ts). */
export interface PushSpec {
  /** The plain JSON payload (channels/webpush.ts). */
  payload: string;
  /** Seconds the push service keeps it for an offline browser (the TTL header). */
  ttl: number;
  urgency: PushUrgency;
}

/**
 * What sending one message takes: HTTP requests (all must succeed), one mail, or one Web Push
 * message for every subscribed browser.
 */
export type Transport =
  | { type: 'http'; requests: HttpRequestSpec[] }
  | { type: 'smtp'; mail: MailSpec }
  | { type: 'push'; push: PushSpec };

/** A channel URL parsed: what the kind needs to build each message, and the URL's secrets. */
export interface ParsedChannel {
  kind: Kind;
  /**
   * Every part of the URL that may be a secret (tokens, passwords, keys, paths): error texts
   * are scrubbed of them before they reach a log, the journal or an answer.
   */
  secrets: string[];
  /** Makes machine text inert in this service's messages (markup.ts); renderMessage applies it. */
  escape: Escape;
  build(message: OutgoingMessage): Transport;
  /**
   * Services that answer 200 to a refusal (Slack's Web API: `{"ok": false}`) say so in the
   * body: returns why it failed, or null when it did not.
   */
  refusal?(status: number, body: string): string | null;
}

/** Options beside the URL in a channel's config. */
export interface ChannelOptions {
  /** webhook: the HMAC-SHA256 key of X-Panoptes-Signature. */
  secret?: string;
  /** Reads a file named in a URL (email: `ca=`); injected so parsing stays testable. */
  readFile?: (path: string) => string;
}

/** A kind of channel (`K`: its name in `KINDS`): which URL schemes it takes and how it reads them. */
export interface ChannelKind<K extends Kind = Kind> {
  kind: K;
  schemes: readonly string[];
  /** Throws ChannelUrlError (never quoting the URL) when the URL does not fit the kind. */
  parse(url: URL, options: ChannelOptions): ParsedChannel;
}

/** A channel URL that cannot be used; the message never quotes the URL (it is a secret). */
export class ChannelUrlError extends Error {
  override name = 'ChannelUrlError';
}
