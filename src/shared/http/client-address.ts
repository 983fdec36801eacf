import type { IncomingHttpHeaders } from 'node:http';
import { BlockList, isIP } from 'node:net';

/** At most this many forwarding hops are walked (the header is bounded anyway; this is cheap). */
const MAX_HOPS = 64;

/** An address in the form Node compares: IPv4-mapped IPv6 (`::ffff:10.0.0.1`) as plain IPv4. */
function normalise(address: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  return mapped?.[1] ?? address;
}

/** An address or CIDR range of `trusted_proxies`, parsed; null when it is neither. */
export function parseProxyEntry(
  entry: string,
): { address: string; prefix: number; family: 'ipv4' | 'ipv6' } | null {
  const [rawAddress = '', rawPrefix, extra] = entry.trim().split('/');
  if (extra !== undefined) return null;
  const address = normalise(rawAddress);
  const version = isIP(address);
  if (version === 0) return null;
  const max = version === 4 ? 32 : 128;
  let prefix = max;
  if (rawPrefix !== undefined) {
    if (!/^\d{1,3}$/.test(rawPrefix)) return null;
    prefix = Number(rawPrefix);
    if (prefix > max) return null;
  }
  return { address, prefix, family: version === 4 ? 'ipv4' : 'ipv6' };
}

/** What is wrong with a `trusted_proxies` entry, or null when it is an address or CIDR range. */
export function proxyEntryProblem(entry: string): string | null {
  return parseProxyEntry(entry) === null
    ? 'is not an IP address or CIDR range (e.g. 10.0.0.5, 10.0.0.0/8, fd00::/8)'
    : null;
}

/**
 * The reverse proxies whose forwarding headers the server believes. Kept in one object that
 * every request reads, so a config reload can swap the list without rebuilding the server.
 */
export class TrustedProxies {
  private list = new BlockList();
  private count = 0;

  constructor(entries: readonly string[] = []) {
    this.set(entries);
  }

  /** Replaces the list (entries are checked at config load; a bad one here is an error). */
  set(entries: readonly string[]): void {
    const list = new BlockList();
    for (const entry of entries) {
      const parsed = parseProxyEntry(entry);
      if (parsed === null) throw new Error(`not an IP address or CIDR range: ${entry}`);
      list.addSubnet(parsed.address, parsed.prefix, parsed.family);
    }
    this.list = list;
    this.count = entries.length;
  }

  /** Whether the address is one of the trusted proxies. */
  trusts(address: string): boolean {
    if (this.count === 0) return false;
    const a = normalise(address);
    const version = isIP(a);
    if (version === 0) return false;
    return this.list.check(a, version === 4 ? 'ipv4' : 'ipv6');
  }

  /** Whether no proxy is trusted (the default): forwarding headers are then never read. */
  get empty(): boolean {
    return this.count === 0;
  }
}

/** One hop of a forwarding header as an address (port and brackets removed), or null. */
function hopAddress(raw: string): string | null {
  let value = raw.trim();
  if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) {
    value = value.slice(1, -1);
  }
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(value);
  if (bracketed?.[1] !== undefined) value = bracketed[1];
  else if (/^\d{1,3}(?:\.\d{1,3}){3}:\d+$/.test(value)) value = value.slice(0, value.indexOf(':'));
  value = normalise(value);
  return isIP(value) === 0 ? null : value;
}

/** The `for=` values of a `Forwarded` header (RFC 7239), in order. */
function forwardedFor(header: string): string[] {
  const hops: string[] = [];
  for (const element of header.split(',')) {
    for (const pair of element.split(';')) {
      const eq = pair.indexOf('=');
      if (eq < 0) continue;
      if (pair.slice(0, eq).trim().toLowerCase() === 'for') hops.push(pair.slice(eq + 1));
    }
  }
  return hops;
}

/** The hops a request claims it passed, nearest last; empty when it claims none. */
function claimedHops(headers: IncomingHttpHeaders): string[] {
  // X-Forwarded-For first: every common proxy appends to it. `Forwarded` only when there is
  // no X-Forwarded-For, or a client could pass its own `Forwarded` through an XFF proxy.
  const xff = headers['x-forwarded-for'];
  if (xff !== undefined) return (Array.isArray(xff) ? xff.join(',') : xff).split(',');
  const forwarded = headers.forwarded;
  if (forwarded !== undefined) return forwardedFor(forwarded);
  return [];
}

/**
 * The client's address: the TCP peer, unless the peer is a trusted proxy; then the right-most
 * forwarded address that is not itself a trusted proxy. A client that is not a trusted proxy
 * can therefore never choose the address it is counted under.
 */
export function clientAddress(
  peer: string,
  headers: IncomingHttpHeaders,
  trusted: TrustedProxies,
): string {
  const direct = normalise(peer);
  if (trusted.empty || !trusted.trusts(direct)) return direct;
  const hops = claimedHops(headers);
  let client = direct;
  for (let i = hops.length - 1, walked = 0; i >= 0 && walked < MAX_HOPS; i -= 1, walked += 1) {
    const hop = hopAddress(hops[i] ?? '');
    // Garbage or `unknown` past trusted hops: the nearest address known is the best there is.
    if (hop === null) return client;
    client = hop;
    if (!trusted.trusts(hop)) return hop;
  }
  return client;
}
