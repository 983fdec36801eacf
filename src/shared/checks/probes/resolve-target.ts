import { lookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import type { AddressGuard } from '../observation.js';

/** A resolved address a probe connects to, and its family (4 or 6). */
export interface TargetAddress {
  address: string;
  family: 4 | 6;
}

/** Why a probe did not connect, told to the person reading the check (not a stack trace). */
export class ProbeError extends Error {}

/**
 * The addresses to connect to. With a guard, every address the name resolves to is asked
 * first and the checked ones are returned, so the connect cannot use another DNS answer than
 * the one checked. Without one, null: the connect resolves the name itself.
 */
export async function guardedAddresses(
  host: string,
  guard: AddressGuard | undefined,
): Promise<TargetAddress[] | null> {
  if (guard === undefined) return null;
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  const family = isIP(bare);
  let found: TargetAddress[];
  if (family !== 0) found = [{ address: bare, family: family as 4 | 6 }];
  else {
    try {
      found = (await lookup(bare, { all: true })).map((a) => ({
        address: a.address,
        family: a.family === 6 ? 6 : 4,
      }));
    } catch (error) {
      throw new ProbeError(networkError(error, bare));
    }
  }
  if (found.length === 0) throw new ProbeError(`DNS: no address for ${bare}`);
  for (const a of found) {
    const refusal = guard(a.address);
    if (refusal !== null) throw new ProbeError(`${refusal} (${bare} is ${a.address})`);
  }
  return found;
}

/** A lookup that answers only the checked addresses, whatever the name. */
export function fixedLookup(found: readonly TargetAddress[]): LookupFunction {
  return (_host, options, callback) => {
    const first = found[0] as TargetAddress;
    if (options.all === true)
      callback(
        null,
        found.map((a) => ({ ...a })),
      );
    else callback(null, first.address, first.family);
  };
}

const CODES: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connection timed out',
  EPIPE: 'connection closed',
  ENOTFOUND: 'DNS: no such host',
  EAI_AGAIN: 'DNS: lookup failed (try again)',
  ENODATA: 'DNS: no address',
};

/** A socket or DNS error as one short line: `connection refused (127.0.0.1:81)`. */
export function networkError(error: unknown, where: string): string {
  if (error instanceof ProbeError) return error.message;
  const code = (error as { code?: unknown } | null)?.code;
  const known = typeof code === 'string' ? CODES[code] : undefined;
  if (known !== undefined) return `${known} (${where})`;
  const message = error instanceof Error ? error.message : String(error);
  return `${message} (${where})`;
}
