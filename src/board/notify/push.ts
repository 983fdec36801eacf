import { createHash, ECDH } from 'node:crypto';
import type { Clock } from '../../shared/clock.js';
import { tokenEquals } from '../../shared/http/tokens.js';
import type { Answer } from '../domain/answer.js';
import type { Journal } from '../domain/journal.js';
import { ANONYMOUS_WHO, BOARD_WHO } from '../domain/who.js';
import type { Who } from '../schemas.js';
import type { HttpRequestSpec, PushSpec } from './channels/types.js';
import type { PushKeys, PushSubscriptionRecord, PushTable } from './ports.js';
import type { PushSettings } from './push-config.js';
import { EndpointGuard, endpointRefusal, type Lookup, refusalText } from './push-endpoint.js';

/** A browser's PushSubscription JSON, as POST /api/push/subscriptions takes it. */
export interface SubscriptionInput {
  endpoint: string;
  keys: { p256dh: string; auth: string };
}

/**
 * What a delivery needs: the VAPID details, every subscription and (unless
 * push.allow_private_endpoints) the guard its connections go through; or why there is none.
 */
export type PushTargets =
  | {
      subject: string;
      keys: PushKeys;
      subscriptions: PushSubscriptionRecord[];
      guard: EndpointGuard | null;
    }
  | { off: string };

/** What the deliveries of a webpush channel ask of the board's push (deliver.ts). */
export interface PushPort {
  targets(): Promise<PushTargets>;
  /** The push service answered 404 or 410: the subscription ended; it is dropped, journaled once. */
  gone(channel: string, id: string, status: number): Promise<void>;
}

const BASE64URL = /^[A-Za-z0-9_-]+={0,2}$/;

/** The 409 detail while push.subject is not set. */
export const PUSH_OFF =
  'Web Push is off: set push.subject (a mailto: or https: contact) in board.yaml';

/** A 422 issue in the shape the validation hook answers; it never quotes the value (a secret). */
function issue(loc: string[], msg: string) {
  return { type: 'value_error', loc: ['body', ...loc], msg: `Value error, ${msg}` };
}

/** The bytes of a base64url text (padding allowed), or null. */
function decoded(text: string): Buffer | null {
  return BASE64URL.test(text) ? Buffer.from(text.replace(/=+$/, ''), 'base64url') : null;
}

/**
 * What is wrong with a subscription, as 422 issues: an endpoint that is not an https: URL
 * (http: only with push.allow_http_endpoints), a p256dh that is not a P-256 point, an auth
 * secret that is not 16 bytes.
 */
export function subscriptionIssues(input: SubscriptionInput, allowHttp: boolean): object[] {
  const issues: object[] = [];
  let url: URL | null = null;
  try {
    url = new URL(input.endpoint);
  } catch {
    issues.push(issue(['endpoint'], 'endpoint must be a URL'));
  }
  if (url !== null) {
    if (url.protocol === 'http:' && !allowHttp)
      issues.push(
        issue(
          ['endpoint'],
          'endpoint must be an https: URL (push.allow_http_endpoints permits http: for tests)',
        ),
      );
    else if (url.protocol !== 'https:' && url.protocol !== 'http:')
      issues.push(issue(['endpoint'], 'endpoint must be an https: URL'));
    else if (url.hostname === '' || url.username !== '' || url.password !== '')
      issues.push(issue(['endpoint'], 'endpoint must name a host and no user or password'));
  }
  const p256dh = decoded(input.keys.p256dh);
  let point = p256dh !== null && p256dh.length === 65 && p256dh[0] === 4;
  if (point) {
    try {
      ECDH.convertKey(p256dh as Buffer, 'prime256v1');
    } catch {
      point = false;
    }
  }
  if (!point)
    issues.push(
      issue(['keys', 'p256dh'], 'p256dh must be a P-256 public key (65 bytes, base64url)'),
    );
  if (decoded(input.keys.auth)?.length !== 16)
    issues.push(issue(['keys', 'auth'], 'auth must be 16 bytes, base64url'));
  return issues;
}

/**
 * A subscription's id: a digest of its endpoint, so the same browser subscribing again (on any
 * board of the store) gets the same id, and the id gives nothing of the endpoint away.
 */
export function subscriptionId(endpoint: string): string {
  return createHash('sha256').update(endpoint).digest('base64url').slice(0, 22);
}

/** The push service's host, for the journal (the rest of the endpoint is the capability). */
function serviceOf(endpoint: string): string {
  try {
    return new URL(endpoint).host;
  } catch {
    return '?';
  }
}

/** web-push, loaded when the board first signs or sends (~2 MB of heap otherwise kept). */
async function loadWebPush(): Promise<typeof import('web-push')> {
  return (await import('web-push')).default;
}

/**
 * The request that carries one message to one browser: encrypted for it (RFC 8291, aes128gcm)
 * and signed with the board's key (RFC 8292), both by the web-push library; the board's own
 * HTTP client sends it (deliver.ts). Throws if the subscription's keys cannot be used.
 */
export async function pushRequest(
  subscription: PushSubscriptionRecord,
  spec: PushSpec,
  vapid: { subject: string; keys: PushKeys },
): Promise<HttpRequestSpec> {
  const webpush = await loadWebPush();
  const details = webpush.generateRequestDetails(
    {
      endpoint: subscription.endpoint,
      keys: { p256dh: subscription.p256dh, auth: subscription.auth },
    },
    spec.payload,
    {
      vapidDetails: {
        subject: vapid.subject,
        publicKey: vapid.keys.publicKey,
        privateKey: vapid.keys.privateKey,
      },
      TTL: spec.ttl,
      urgency: spec.urgency,
      contentEncoding: 'aes128gcm',
    },
  );
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(details.headers)) {
    // The HTTP client counts the body itself.
    if (name.toLowerCase() !== 'content-length') headers[name.toLowerCase()] = String(value);
  }
  return { method: 'POST', url: details.endpoint, headers, body: details.body };
}

export interface WebPushDeps {
  /** The store's push table, its writes through the store's health (503 while it cannot write). */
  table: PushTable;
  settings: () => PushSettings;
  clock: Clock;
  journal: Journal;
  /** Resolves endpoints' names (tests: a resolver they control); node:dns by default. */
  lookup?: Lookup;
}

/**
 * Web Push on the board: the VAPID key pair (made once, kept in the store, so every board of a
 * store signs with the same key and a browser subscribed through one is reached by any), the
 * subscriptions (the API), and what webpush channels send to. An endpoint and its keys are
 * secrets: no answer, log line or journal entry holds one.
 */
export class WebPush implements PushPort {
  private keys: Promise<PushKeys> | null = null;
  private readonly guard: EndpointGuard;

  constructor(private readonly deps: WebPushDeps) {
    this.guard = new EndpointGuard(deps.lookup);
  }

  /** The kept key pair (made and kept at the first call of any board of the store). */
  private vapid(): Promise<PushKeys> {
    if (this.keys === null) {
      this.keys = loadWebPush()
        .then((webpush) => this.deps.table.keys(webpush.generateVAPIDKeys(), this.deps.clock.now()))
        .catch((error: unknown) => {
          this.keys = null;
          throw error;
        });
    }
    return this.keys;
  }

  /** GET /api/push/key. */
  async publicKey(): Promise<Answer> {
    if (this.deps.settings().subject === null) return { status: 409, body: { detail: PUSH_OFF } };
    return { status: 200, body: { public_key: (await this.vapid()).publicKey } };
  }

  /** POST /api/push/subscriptions: the same endpoint again keeps its id (its keys renewed). */
  async subscribe(who: Who, input: SubscriptionInput): Promise<Answer> {
    const settings = this.deps.settings();
    if (settings.subject === null) return { status: 409, body: { detail: PUSH_OFF } };
    const issues = await this.issues(input, settings);
    if (issues.length > 0) return { status: 422, body: { detail: issues } };
    const kept = await this.keep(input, settings);
    if ('status' in kept) return kept;
    if (kept.added) {
      await this.deps.journal.record({
        who,
        op: 'push',
        target: `subscription ${kept.id}`,
        outcome: 'subscribed',
        status: 200,
        detail: `a browser subscribed to push (push service ${serviceOf(input.endpoint)})`,
      });
    }
    return { status: 200, body: { id: kept.id } };
  }

  /**
   * POST /api/push/subscriptions/{id}/renew: the board's service worker, when the browser's
   * push service replaced the subscription (pushsubscriptionchange). It has no board token (the
   * page keeps that in its tab): the old subscription's auth secret, which only the browser and
   * the board know, proves it held that one; the new subscription takes its place.
   */
  async renew(id: string, auth: string, input: SubscriptionInput): Promise<Answer> {
    const settings = this.deps.settings();
    if (settings.subject === null) return { status: 409, body: { detail: PUSH_OFF } };
    const old = (await this.deps.table.list()).find((s) => s.id === id);
    if (old === undefined || !tokenEquals(auth, old.auth))
      return {
        status: 404,
        body: { detail: `No push subscription '${id}' with that auth secret` },
      };
    const issues = await this.issues(input, settings);
    if (issues.length > 0) {
      // The new subscription is a member of the body: its fields are named under it.
      for (const i of issues as { loc: string[] }[]) i.loc.splice(1, 0, 'subscription');
      return { status: 422, body: { detail: issues } };
    }
    await this.deps.table.unsubscribe(id);
    const kept = await this.keep(input, settings);
    if ('status' in kept) return kept;
    await this.deps.journal.record({
      who: ANONYMOUS_WHO,
      op: 'push',
      target: `subscription ${kept.id}`,
      outcome: 'renewed',
      status: 200,
      detail: `a browser's push service renewed subscription ${id}, so its service worker replaced it (push service ${serviceOf(input.endpoint)})`,
    });
    return { status: 200, body: { id: kept.id } };
  }

  /** What is wrong with a subscription (422 issues), its endpoint's addresses included. */
  private async issues(input: SubscriptionInput, settings: PushSettings): Promise<object[]> {
    const issues = subscriptionIssues(input, settings.allowHttpEndpoints);
    if (issues.length > 0 || settings.allowPrivateEndpoints) return issues;
    const what = await endpointRefusal(new URL(input.endpoint).hostname, this.deps.lookup);
    return what === null ? [] : [issue(['endpoint'], refusalText(what))];
  }

  /** Keeps a checked subscription: its id and whether it is new, or the 409 of the bound. */
  private async keep(
    input: SubscriptionInput,
    settings: PushSettings,
  ): Promise<{ id: string; added: boolean } | Answer> {
    const kept = await this.deps.table.subscribe(
      {
        id: subscriptionId(input.endpoint),
        endpoint: input.endpoint,
        p256dh: input.keys.p256dh,
        auth: input.keys.auth,
        created_at: this.deps.clock.now(),
      },
      settings.maxSubscriptions,
    );
    return (
      kept ?? {
        status: 409,
        body: {
          detail: `The board keeps at most ${settings.maxSubscriptions} push subscriptions (push.max_subscriptions): delete one first`,
        },
      }
    );
  }

  /** DELETE /api/push/subscriptions/{id}. */
  async unsubscribe(who: Who, id: string): Promise<Answer> {
    if (this.deps.settings().subject === null) return { status: 409, body: { detail: PUSH_OFF } };
    if (!(await this.deps.table.unsubscribe(id)))
      return { status: 404, body: { detail: `No push subscription '${id}'` } };
    await this.deps.journal.record({
      who,
      op: 'push',
      target: `subscription ${id}`,
      outcome: 'unsubscribed',
      status: 200,
      detail: 'push subscription deleted',
    });
    return { status: 200, body: { id } };
  }

  async targets(): Promise<PushTargets> {
    const settings = this.deps.settings();
    if (settings.subject === null) return { off: PUSH_OFF };
    const [keys, subscriptions] = await Promise.all([this.vapid(), this.deps.table.list()]);
    const guard = settings.allowPrivateEndpoints ? null : this.guard;
    return { subject: settings.subject, keys, subscriptions, guard };
  }

  async gone(channel: string, id: string, status: number): Promise<void> {
    // Of several boards (or deliveries) that hear it, the one that removes it journals it.
    if (!(await this.deps.table.unsubscribe(id))) return;
    await this.deps.journal.record({
      who: BOARD_WHO,
      op: 'push',
      target: `subscription ${id}`,
      outcome: 'dropped',
      status,
      detail: `the push service answered ${status} to a message of channel ${channel}: the browser's subscription has ended, so it is dropped`,
    });
  }
}
