import type { HandedCheck } from './wire.js';

/**
 * What one run of a check saw: the values Gatus's placeholders name. A probe fills what its type
 * knows (`[STATUS]` only for http, `[DNS_RCODE]` only for dns, …); the rest stay undefined.
 */
export interface Observation {
  /** `[CONNECTED]`: the target answered at all (TCP connected, TLS handshake, ICMP reply, DNS answer). */
  connected: boolean;
  /** `[RESPONSE_TIME]` in milliseconds. */
  responseTimeMs: number;
  /** `[STATUS]`: the HTTP status code. */
  status?: number;
  /** `[BODY]`: the response body as text (http), or the DNS answers' data joined by newlines. */
  body?: string;
  /** `[IP]`: the address that answered. */
  ip?: string;
  /** `[CERTIFICATE_EXPIRATION]`: milliseconds until the certificate's notAfter (may be < 0). */
  certificateExpirationMs?: number;
  /** `[DNS_RCODE]`: NOERROR, NXDOMAIN, SERVFAIL, REFUSED, … */
  dnsRcode?: string;
  /** Why the probe could not complete (refused, timed out, "refused: private address"). */
  error?: string;
  /** The certificate seen (http over TLS, tls). */
  cert?: { notAfter: Date; fingerprint256: string; issuer: string; subject: string };
}

/** Decides whether a resolved address may be probed: null, or why not ("refused: private address"). */
export type AddressGuard = (address: string) => string | null;

/** What every probe is given. */
export interface ProbeOptions {
  /** Asked for every address the target resolves to, before connecting (the board's own runs). */
  guard?: AddressGuard;
  /** Aborted at the check's timeout. */
  signal: AbortSignal;
  now: () => Date;
}

/** One check type's client: connects, measures, and says what it saw (never throws for the target's faults). */
export type Probe = (check: HandedCheck, options: ProbeOptions) => Promise<Observation>;
