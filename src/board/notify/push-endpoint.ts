import { type LookupAddress, type LookupOptions, lookup as systemLookup } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import type { Dispatcher } from 'undici';

/**
 * Address ranges a push service is never at, each with what it is called in a refusal: the
 * board's own machine and network, cloud metadata, and the ranges IANA keeps for special use.
 * A push endpoint is chosen by whoever holds a board token, so without this the board could be
 * made to connect inward (a port scan, or a local service's answer in the journal).
 */
const RANGES: readonly [string, number, 'ipv4' | 'ipv6', string][] = [
  ['0.0.0.0', 8, 'ipv4', 'a "this network" address (0.0.0.0/8)'],
  ['10.0.0.0', 8, 'ipv4', 'a private address (10.0.0.0/8)'],
  ['100.64.0.0', 10, 'ipv4', 'a carrier-grade NAT address (100.64.0.0/10)'],
  ['127.0.0.0', 8, 'ipv4', 'a loopback address (127.0.0.0/8)'],
  ['169.254.0.0', 16, 'ipv4', 'a link-local or cloud metadata address (169.254.0.0/16)'],
  ['172.16.0.0', 12, 'ipv4', 'a private address (172.16.0.0/12)'],
  ['192.0.0.0', 24, 'ipv4', 'an IETF special-purpose address (192.0.0.0/24)'],
  ['192.0.2.0', 24, 'ipv4', 'a documentation address (192.0.2.0/24)'],
  ['192.88.99.0', 24, 'ipv4', 'a 6to4 relay address (192.88.99.0/24)'],
  ['192.168.0.0', 16, 'ipv4', 'a private address (192.168.0.0/16)'],
  ['198.18.0.0', 15, 'ipv4', 'a benchmarking address (198.18.0.0/15)'],
  ['198.51.100.0', 24, 'ipv4', 'a documentation address (198.51.100.0/24)'],
  ['203.0.113.0', 24, 'ipv4', 'a documentation address (203.0.113.0/24)'],
  ['224.0.0.0', 4, 'ipv4', 'a multicast address (224.0.0.0/4)'],
  ['240.0.0.0', 4, 'ipv4', 'a reserved or broadcast address (240.0.0.0/4)'],
  // The IPv4-compatible block holds :: and ::1; mapped addresses (::ffff:0:0/96) are checked
  // as the IPv4 address they carry (BlockList does that by itself).
  ['::', 96, 'ipv6', 'an unspecified, loopback or IPv4-compatible address (::/96)'],
  ['64:ff9b:1::', 48, 'ipv6', 'a local-use NAT64 address (64:ff9b:1::/48)'],
  ['100::', 64, 'ipv6', 'a discard-only address (100::/64)'],
  ['2001::', 23, 'ipv6', 'an IETF special-purpose address (2001::/23)'],
  ['2001:db8::', 32, 'ipv6', 'a documentation address (2001:db8::/32)'],
  ['2002::', 16, 'ipv6', 'a 6to4 address (2002::/16)'],
  ['3fff::', 20, 'ipv6', 'a documentation address (3fff::/20)'],
  ['fc00::', 7, 'ipv6', 'a unique local or cloud metadata address (fc00::/7)'],
  ['fe80::', 10, 'ipv6', 'a link-local address (fe80::/10)'],
  ['fec0::', 10, 'ipv6', 'a site-local address (fec0::/10)'],
  ['ff00::', 8, 'ipv6', 'a multicast address (ff00::/8)'],
];

/** One BlockList per range, so a refusal can say which. */
const LISTS: readonly [BlockList, string][] = RANGES.flatMap(([net, prefix, family, what]) => {
  const list = new BlockList();
  list.addSubnet(net, prefix, family);
  // NAT64's well-known prefix (64:ff9b::/96) carries an IPv4 address: the same ranges apply.
  if (family === 'ipv4') list.addSubnet(`64:ff9b::${net}`, 96 + prefix, 'ipv6');
  return [[list, what] as [BlockList, string]];
});

/** What an IP address is if a push service cannot be there (see RANGES), else null. */
export function addressRefusal(address: string): string | null {
  const bare = address.replace(/^\[|\]$/g, '');
  const family = isIP(bare);
  if (family === 0) return null;
  const type = family === 4 ? 'ipv4' : 'ipv6';
  for (const [list, what] of LISTS) if (list.check(bare, type)) return what;
  return null;
}

/** The text of a refusal: why, and the setting that lifts it; never the address itself. */
export function refusalText(what: string): string {
  return `the push service's address is ${what}: push services are on the internet (push.allow_private_endpoints permits others, for tests)`;
}

/** node:dns's lookup, or one a test controls. */
export type Lookup = (
  hostname: string,
  options: { all: true },
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

/** How long a subscription waits for its host's name to resolve before taking it unchecked. */
const RESOLVE_MS = 3000;

/**
 * Why an endpoint's host cannot be a push service, at subscribe: an IP address is checked as it
 * is, a name by every address it resolves to. A name that does not resolve (now) is taken: it
 * is checked again at each connection, where the answer counts.
 */
export async function endpointRefusal(
  hostname: string,
  lookup: Lookup = systemLookup as Lookup,
): Promise<string | null> {
  if (isIP(hostname.replace(/^\[|\]$/g, '')) !== 0) return addressRefusal(hostname);
  const addresses = await new Promise<LookupAddress[]>((resolve) => {
    const timer = setTimeout(() => resolve([]), RESOLVE_MS);
    lookup(hostname, { all: true }, (error, found) => {
      clearTimeout(timer);
      resolve(error === null ? found : []);
    });
  });
  for (const a of addresses) {
    const what = addressRefusal(a.address);
    if (what !== null) return what;
  }
  return null;
}

/** The error a refused connection fails with: its code names it, its message the reason. */
export class PrivateEndpointError extends Error {
  readonly code = 'EPUSHPRIVATE';
}

/**
 * Why a request to a push service failed before an answer, for the journal: the guard's refusal
 * (not retried), or the error's code alone (its message may hold the address it was sent to).
 */
export function connectFailure(error: unknown): { why: string; retry: boolean } {
  const e = error as { code?: unknown; cause?: { code?: unknown } };
  for (const x of [error, e.cause])
    if (x instanceof PrivateEndpointError) return { why: x.message, retry: false };
  const code = e.cause?.code ?? e.code;
  const what = typeof code === 'string' ? code : 'network error';
  return { why: `could not reach the push service (${what})`, retry: true };
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for net.connect: resolves, refuses unless every address may be a push service,
 * and hands those checked addresses to the connection itself, so DNS cannot answer one address
 * to the check and another to the connect.
 */
export function checkedLookup(lookup: Lookup = systemLookup as Lookup) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback) => {
    const all = options.all === true;
    lookup(hostname, { all: true }, (error, addresses) => {
      if (error !== null) return callback(error, []);
      const first = addresses[0];
      if (first === undefined)
        return callback(Object.assign(new Error('no address'), { code: 'ENOTFOUND' }), []);
      for (const a of addresses) {
        const what = addressRefusal(a.address);
        if (what !== null) return callback(new PrivateEndpointError(refusalText(what)), []);
      }
      if (all) callback(null, addresses);
      else callback(null, first.address, first.family);
    });
  };
}

/**
 * What a board's push deliveries connect through while private endpoints are refused: an
 * endpoint at an IP address is checked before the request, one at a name by the connection's
 * own lookup (checkedLookup). One per board (its connections are reused between messages;
 * idle ones hold no reference, so a stopping board need not close them).
 */
export class EndpointGuard {
  private agent: Promise<Dispatcher> | null = null;

  constructor(private readonly lookup: Lookup = systemLookup as Lookup) {}

  /** Why the board does not connect to this URL's host, if it is an IP address it refuses. */
  refusal(url: string): string | null {
    let host: string;
    try {
      host = new URL(url).hostname;
    } catch {
      return null;
    }
    const what = addressRefusal(host);
    return what === null ? null : refusalText(what);
  }

  /** The undici dispatcher whose connections resolve through checkedLookup. */
  dispatcher(): Promise<Dispatcher> {
    // undici, loaded at the first push (as deliver.ts loads it).
    this.agent ??= import('undici').then(
      ({ Agent }) => new Agent({ connect: { lookup: checkedLookup(this.lookup) } }),
    );
    return this.agent;
  }
}
