import type { Dispatcher } from 'undici';
import type { HttpRequestSpec, MailSpec, ParsedChannel, PushSpec } from './channels/types.js';
import type { OutgoingMessage } from './event.js';
import { type PushPort, pushRequest } from './push.js';
import { connectFailure } from './push-endpoint.js';
import { scrub } from './scrub.js';

/** Tries per delivery at most. */
export const TRIES_MAX = 3;
/** Waits before the 2nd and 3rd try. */
export const BACKOFF_MS = [1000, 4000] as const;
/** Characters of a refusal's body kept for the journal. */
const BODY_KEPT = 300;

/** Browsers a webpush message goes to at once. */
const PUSH_CONCURRENCY = 8;

/** The outcome of one delivery, after its retries (`detail`: to whom, for the journal). */
export type SendResult =
  | { ok: true; status: number | null; tries: number; detail?: string }
  | { ok: false; status: number | null; tries: number; why: string; aborted: boolean };

/** One try's outcome: whether another try may help. */
type TryResult =
  | { ok: true; status: number | null }
  | { ok: false; status: number | null; why: string; retry: boolean };

export interface SendOptions {
  timeoutMs: number;
  /** Ends tries and waits at once (the board is shutting down). */
  signal?: AbortSignal;
  backoffMs?: readonly number[];
  tries?: number;
  /** webpush channels: the channel's name and the board's push (subscriptions, VAPID key). */
  push?: { channel: string; port: () => Promise<PushPort> };
}

/**
 * Sends one message through one channel: every request the kind builds (or its mail), each
 * with a time-out per try and up to TRIES_MAX tries with backoff after network errors,
 * time-outs and 5xx answers (SMTP: 4xx replies, its transient ones), never after a 4xx.
 * The reason of a failure is scrubbed of the channel's secrets.
 */
export async function deliver(
  channel: ParsedChannel,
  message: OutgoingMessage,
  options: SendOptions,
): Promise<SendResult> {
  const transport = channel.build(message);
  if (transport.type === 'push') return deliverPush(transport.push, channel, options);
  const steps: (() => Promise<TryResult>)[] =
    transport.type === 'smtp'
      ? [() => sendMail(transport.mail, options)]
      : transport.requests.map((spec) => () => sendHttp(spec, channel, options));
  let status: number | null = null;
  let tries = 0;
  for (const [i, step] of steps.entries()) {
    const result = await withRetries(step, options);
    tries += result.tries;
    if (!result.ok) {
      const which = steps.length > 1 ? ` (request ${i + 1} of ${steps.length})` : '';
      return { ...result, tries, why: scrub(result.why + which, channel.secrets) };
    }
    status = result.status;
  }
  return { ok: true, status, tries };
}

/** Resolves with `work`, or null once the signal ends the wait. */
function unlessAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T | null> {
  if (signal === undefined) return work;
  if (signal.aborted) return Promise.resolve(null);
  return new Promise<T | null>((resolve, reject) => {
    const onAbort = () => resolve(null);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** What of a subscription may show up in an error: its endpoint, the parts of its path, its auth. */
function endpointSecrets(endpoint: string, auth: string): string[] {
  let parts: string[] = [];
  try {
    parts = new URL(endpoint).pathname.split('/');
  } catch {
    // validated when it was subscribed
  }
  return [endpoint, ...parts, auth]
    .filter((s) => s.length >= 6)
    .sort((a, b) => b.length - a.length);
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * One Web Push message to every subscribed browser, each encrypted for it and sent with its own
 * retries (a browser that got it is not sent it again because another failed). A 404 or 410
 * means the subscription has ended: it is dropped, not failed. The delivery succeeds when no
 * browser failed and at least one got it; a reason never holds an endpoint.
 */
async function deliverPush(
  spec: PushSpec,
  channel: ParsedChannel,
  options: SendOptions,
): Promise<SendResult> {
  const fail = (why: string): SendResult => ({
    ok: false,
    status: null,
    tries: 0,
    why,
    aborted: false,
  });
  if (options.push === undefined) return fail('Web Push is not set up on this board');
  const shutDown: SendResult = {
    ok: false,
    status: null,
    tries: 0,
    why: 'the board shut down',
    aborted: true,
  };
  const port = await unlessAborted(options.push.port(), options.signal);
  if (port === null) return shutDown;
  let targets: Awaited<ReturnType<PushPort['targets']>>;
  try {
    targets = await port.targets();
  } catch (error) {
    return fail(`the subscriptions could not be read: ${(error as Error).message}`);
  }
  if ('off' in targets) return fail(targets.off);
  const all = targets.subscriptions;
  if (all.length === 0)
    return fail('no browser is subscribed (the board page: Notify this browser)');
  let delivered = 0;
  let dropped = 0;
  let tries = 0;
  let status: number | null = null;
  let aborted = false;
  const failures: { why: string; status: number | null }[] = [];
  const queue = [...all];
  const worker = async () => {
    for (let sub = queue.shift(); sub !== undefined; sub = queue.shift()) {
      const secrets = endpointSecrets(sub.endpoint, sub.auth);
      let request: HttpRequestSpec;
      try {
        request = await pushRequest(sub, spec, targets);
      } catch (error) {
        failures.push({ why: scrub((error as Error).message, secrets), status: null });
        continue;
      }
      // Private endpoints are refused again here: the setting may have changed since.
      const refused = targets.guard?.refusal(request.url) ?? null;
      if (refused !== null) {
        failures.push({ why: refused, status: null });
        continue;
      }
      const dispatcher = await targets.guard?.dispatcher();
      const push = { dispatcher };
      const result = await withRetries(() => sendHttp(request, channel, options, push), options);
      tries = Math.max(tries, result.tries);
      if (result.ok) {
        delivered += 1;
        status = result.status;
      } else if (result.aborted) {
        aborted = true;
      } else if (result.status === 404 || result.status === 410) {
        dropped += 1;
        await port.gone(options.push?.channel ?? '', sub.id, result.status).catch(() => undefined);
      } else {
        failures.push({
          why: scrub(result.why, secrets),
          status: result.status,
        });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(PUSH_CONCURRENCY, all.length) }, worker));
  if (aborted) return { ...shutDown, tries };
  const gone = dropped > 0 ? `; ${plural(dropped, 'ended subscription')} dropped` : '';
  const first = failures[0];
  if (first !== undefined) {
    return {
      ok: false,
      status: first.status,
      tries,
      aborted: false,
      why: `${failures.length} of ${plural(all.length, 'browser')} not reached (${delivered} reached${gone}): ${first.why}`,
    };
  }
  if (delivered === 0)
    return {
      ...fail(`every subscribed browser has gone (${plural(dropped, 'subscription')} dropped)`),
      tries,
    };
  return { ok: true, status, tries, detail: `to ${plural(delivered, 'browser')}${gone}` };
}

async function withRetries(
  step: () => Promise<TryResult>,
  options: SendOptions,
): Promise<SendResult> {
  const max = options.tries ?? TRIES_MAX;
  const backoff = options.backoffMs ?? BACKOFF_MS;
  let last: TryResult = { ok: false, status: null, why: 'not tried', retry: false };
  for (let attempt = 1; attempt <= max; attempt++) {
    if (options.signal?.aborted === true)
      return {
        ok: false,
        status: last.status,
        tries: attempt - 1,
        why: 'the board shut down',
        aborted: true,
      };
    last = await step();
    if (last.ok) return { ok: true, status: last.status, tries: attempt };
    if (!last.retry || attempt === max) {
      const why = attempt > 1 ? `${last.why} (after ${attempt} tries)` : last.why;
      return { ok: false, status: last.status, tries: attempt, why, aborted: false };
    }
    const wait = backoff[Math.min(attempt - 1, backoff.length - 1)] ?? 0;
    if (!(await sleep(wait, options.signal)))
      return { ok: false, status: last.status, tries: attempt, why: last.why, aborted: true };
  }
  return { ok: false, status: null, tries: max, why: 'not tried', aborted: false };
}

/** Waits `ms`; false when the signal ended the wait. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted === true) return resolve(false);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * One HTTP request. To a push service (`push`): through its dispatcher (the endpoint guard's,
 * or undici's own when private endpoints are allowed), and a failure says only the status or
 * the error's code: neither the service's body nor the address it was at goes to the journal.
 */
async function sendHttp(
  spec: HttpRequestSpec,
  channel: ParsedChannel,
  options: SendOptions,
  push?: { dispatcher: Dispatcher | undefined },
): Promise<TryResult> {
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal =
    options.signal === undefined ? timeout : AbortSignal.any([timeout, options.signal]);
  try {
    // undici, loaded at the first webhook or push (the board's thread needs it for nothing else).
    const { request } = await import('undici');
    const response = await request(spec.url, {
      method: spec.method,
      headers: { 'user-agent': 'panoptes-board', ...spec.headers },
      body: spec.body,
      signal,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      ...(push?.dispatcher === undefined ? {} : { dispatcher: push.dispatcher }),
    });
    const text = await readSome(response.body, BODY_KEPT * 4);
    const status = response.statusCode;
    if (status >= 200 && status < 300) {
      const refused = channel.refusal?.(status, text) ?? null;
      return refused === null
        ? { ok: true, status }
        : { ok: false, status, why: refused, retry: false };
    }
    const body = push === undefined ? text.trim().replace(/\s+/g, ' ').slice(0, BODY_KEPT) : '';
    return {
      ok: false,
      status,
      why: `answered ${status}${body === '' ? '' : `: ${body}`}`,
      retry: status >= 500,
    };
  } catch (error) {
    if (timeout.aborted)
      return {
        ok: false,
        status: null,
        why: `no answer within ${options.timeoutMs / 1000} s`,
        retry: true,
      };
    if (options.signal?.aborted === true)
      return { ok: false, status: null, why: 'the board shut down', retry: false };
    if (push !== undefined) return { ok: false, status: null, ...connectFailure(error) };
    return { ok: false, status: null, why: networkError(error), retry: true };
  }
}

/** Reads at most `max` characters of a body, then drops the rest. */
async function readSome(
  body: AsyncIterable<Buffer> & { destroy(): unknown },
  max: number,
): Promise<string> {
  let text = '';
  for await (const chunk of body) {
    text += chunk.toString('utf8');
    if (text.length >= max) {
      body.destroy();
      break;
    }
  }
  return text.slice(0, max);
}

/** A network error in a few words: its code and message, never the address it was sent to. */
function networkError(error: unknown): string {
  const e = error as {
    code?: unknown;
    message?: unknown;
    cause?: { code?: unknown; message?: unknown };
  };
  const cause = e.cause ?? e;
  const code = typeof cause.code === 'string' ? cause.code : null;
  const message = typeof cause.message === 'string' ? cause.message : 'network error';
  return code === null ? message : `${code}: ${message}`;
}

/** nodemailer, loaded at the first e-mail (~4 MB of heap a board without e-mail rules keeps). */
async function loadMailer(): Promise<typeof import('nodemailer') | string> {
  try {
    return await import('nodemailer');
  } catch (error) {
    return `cannot load nodemailer: ${error instanceof Error ? error.message : String(error)}`;
  }
}

async function sendMail(mail: MailSpec, options: SendOptions): Promise<TryResult> {
  const mailer = await loadMailer();
  if (typeof mailer === 'string') return { ok: false, status: null, why: mailer, retry: false };
  const transporter = mailer.createTransport({
    host: mail.host,
    port: mail.port,
    secure: mail.encryption === 'tls',
    requireTLS: mail.encryption === 'starttls',
    ignoreTLS: mail.encryption === 'none',
    ...(mail.user === null ? {} : { auth: { user: mail.user, pass: mail.pass ?? '' } }),
    ...(mail.ca === null ? {} : { tls: { ca: [mail.ca] } }),
    connectionTimeout: options.timeoutMs,
    greetingTimeout: options.timeoutMs,
    socketTimeout: options.timeoutMs,
  });
  const abort = () => transporter.close();
  options.signal?.addEventListener('abort', abort, { once: true });
  try {
    await transporter.sendMail({
      from: mail.from,
      to: mail.to,
      subject: mail.subject,
      text: mail.text,
    });
    return { ok: true, status: null };
  } catch (error) {
    const e = error as { responseCode?: unknown; code?: unknown; message?: unknown };
    const code = typeof e.responseCode === 'number' ? e.responseCode : null;
    const why = `${typeof e.code === 'string' ? `${e.code}: ` : ''}${typeof e.message === 'string' ? e.message : 'SMTP error'}`;
    // SMTP's 5xx replies are permanent and 4xx transient: the opposite of HTTP's.
    return {
      ok: false,
      status: code,
      why: why.slice(0, BODY_KEPT),
      retry: code === null || code < 500,
    };
  } finally {
    options.signal?.removeEventListener('abort', abort);
    transporter.close();
  }
}
