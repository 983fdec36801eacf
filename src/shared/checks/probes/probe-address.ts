import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { AddressGuard, Observation } from '../observation.js';

/** A host and port taken from `host`, `host:port`, `[v6]` or `[v6]:port` (a bare IPv6 has no port). */
export interface HostPort {
  host: string;
  port: number;
}

/** Splits a target or resolver into host and port; a text naming why when it cannot. */
export function splitHostPort(text: string, defaultPort: number): HostPort | string {
  const trimmed = text.trim();
  let host = trimmed;
  let portText: string | undefined;
  const bracketed = /^\[([^\]]+)\](?::(.*))?$/.exec(trimmed);
  if (bracketed) {
    host = bracketed[1] ?? '';
    portText = bracketed[2];
  } else if (isIP(trimmed) !== 6) {
    const colon = trimmed.lastIndexOf(':');
    if (colon >= 0) {
      host = trimmed.slice(0, colon);
      portText = trimmed.slice(colon + 1);
    }
  }
  if (host === '' || /[\s/]/.test(host)) return `not a host: '${text}'`;
  if (portText === undefined) return { host, port: defaultPort };
  const port = /^\d{1,5}$/.test(portText) ? Number(portText) : Number.NaN;
  if (!(port >= 1 && port <= 65_535)) return `not a port: '${portText}'`;
  return { host, port };
}

/** What the name resolved to, and its IP family. */
export interface Resolved {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name (an address stays as it is) to the one address the probe will contact. */
export async function resolveHost(host: string): Promise<Resolved | string> {
  const family = isIP(host);
  if (family === 4 || family === 6) return { address: host, family };
  try {
    const found = await lookup(host);
    return { address: found.address, family: found.family === 6 ? 6 : 4 };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOTFOUND' || code === 'ENODATA'
      ? `cannot resolve ${host}`
      : `cannot resolve ${host}: ${code ?? String(error)}`;
  }
}

/** Resolves, then asks the guard (if any): the address to contact, or why not. */
export async function resolveGuarded(
  host: string,
  guard: AddressGuard | undefined,
): Promise<Resolved | string> {
  const resolved = await resolveHost(host);
  if (typeof resolved === 'string') return resolved;
  const refusal = guard?.(resolved.address);
  return refusal ?? resolved;
}

/** An observation of a run that contacted nothing, or nothing that answered. */
export function failed(error: string, responseTimeMs = 0, ip?: string): Observation {
  return { connected: false, responseTimeMs, error, ...(ip === undefined ? {} : { ip }) };
}

/** What a run says when the check's timeout aborted it. */
export function timedOut(timeoutS: number): string {
  return `timed out after ${timeoutS}s`;
}

/** Settles with `undefined` when the signal aborts (at once if it already has). */
export function aborted(signal: AbortSignal): Promise<undefined> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve(undefined);
    else signal.addEventListener('abort', () => resolve(undefined), { once: true });
  });
}

/** A system error as a short phrase ("connection refused"), for a one-line detail. */
export function describeError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
      return 'connection reset';
    case 'EHOSTUNREACH':
      return 'host unreachable';
    case 'ENETUNREACH':
      return 'network unreachable';
    case 'ETIMEDOUT':
      return 'connection timed out';
    default:
      return error instanceof Error
        ? (error.message.split('\n')[0] ?? code ?? 'error')
        : String(error);
  }
}
