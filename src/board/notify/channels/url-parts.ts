import { ChannelUrlError } from './types.js';

/** The query parameter `name` (case-insensitive, like shoutrrr's), or null. */
export function param(url: URL, name: string): string | null {
  const want = name.toLowerCase();
  for (const [key, value] of url.searchParams) if (key.toLowerCase() === want) return value;
  return null;
}

/** A comma-separated list parameter (empty items dropped). */
export function listParam(url: URL, ...names: string[]): string[] {
  for (const name of names) {
    const value = param(url, name);
    if (value !== null)
      return value
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== '');
  }
  return [];
}

/** A yes/no parameter (yes, true, 1 / no, false, 0); `fallback` when absent. */
export function boolParam(url: URL, name: string, fallback: boolean): boolean {
  const value = param(url, name);
  if (value === null || value === '') return fallback;
  if (/^(yes|true|1)$/i.test(value)) return true;
  if (/^(no|false|0)$/i.test(value)) return false;
  throw new ChannelUrlError(`${name} must be yes or no`);
}

/** An integer parameter within [min, max]; `fallback` when absent. */
export function intParam(url: URL, name: string, min: number, max: number): number | null {
  const value = param(url, name);
  if (value === null || value === '') return null;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new ChannelUrlError(`${name} must be an integer from ${min} to ${max}`);
  }
  return n;
}

/**
 * The scheme requests go out with: https unless `scheme=http` (or shoutrrr's `disabletls=yes`)
 * says otherwise — for self-hosted servers without TLS and for local test receivers.
 */
export function schemeOf(url: URL): 'http' | 'https' {
  const scheme = param(url, 'scheme');
  if (scheme !== null && scheme !== '') {
    if (scheme !== 'http' && scheme !== 'https')
      throw new ChannelUrlError('scheme must be http or https');
    return scheme;
  }
  return boolParam(url, 'disabletls', false) ? 'http' : 'https';
}

/**
 * The API base of a service that has one public host (Slack, Discord, Telegram, …): `host=`
 * points the channel at another host (a proxy, a local receiver in tests).
 */
export function apiBase(url: URL, defaultHost: string): string {
  const host = param(url, 'host');
  if (host !== null && !/^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/.test(host)) {
    throw new ChannelUrlError('host must be a host name, optionally with :port');
  }
  return `${schemeOf(url)}://${host === null || host === '' ? defaultHost : host}`;
}

/** The URL's own host with its port, as requests to a self-hosted server use it. */
export function hostOf(url: URL): string {
  if (url.hostname === '') throw new ChannelUrlError('the URL names no host');
  return url.host;
}

/** The path's segments, percent-decoded, empty ones dropped. */
export function segments(url: URL): string[] {
  return url.pathname
    .split('/')
    .filter((s) => s !== '')
    .map((s) => decode(s));
}

/** Percent-decodes a URL part (user, password, segment); a bad escape is an error. */
export function decode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw new ChannelUrlError('the URL has a malformed %-escape');
  }
}

/** The secrets of a URL: user, password, path segments and query values (non-trivial ones). */
export function secretsOf(url: URL, ...more: string[]): string[] {
  const out = new Set<string>();
  const add = (s: string) => {
    if (s.length >= 6) out.add(s);
  };
  add(url.href);
  add(decode(url.username));
  add(decode(url.password));
  add(url.username);
  add(url.password);
  for (const s of url.pathname.split('/')) {
    add(s);
    add(decode(s));
  }
  for (const [, value] of url.searchParams) add(value);
  for (const s of more) add(s);
  return [...out].sort((a, b) => b.length - a.length);
}

/** A JSON POST request. */
export function jsonPost(
  target: string,
  body: unknown,
  headers: Record<string, string> = {},
): { method: 'POST'; url: string; headers: Record<string, string>; body: string } {
  return {
    method: 'POST',
    url: target,
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  };
}
