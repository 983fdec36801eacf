import { hash, timingSafeEqual } from 'node:crypto';

/** Compares a presented token with a known one in time independent of where they differ. */
export function tokenEquals(presented: string, known: string): boolean {
  // Hashing first makes the comparison independent of the lengths as well.
  return timingSafeEqual(tokenDigest(presented), tokenDigest(known));
}

/** The digest tokens are compared by (hash a known token once, not per request). */
export function tokenDigest(token: string): Buffer {
  // The one-shot form: no Hash object per request (the report path hashes every token it sees).
  return hash('sha256', token, 'buffer') as unknown as Buffer;
}

/** Compares two digests of tokenDigest in constant time. */
export function digestEquals(a: Buffer, b: Buffer): boolean {
  return timingSafeEqual(a, b);
}

/** The token a request presents: `Authorization: Bearer …` first, else `?token=…`; null if none. */
export function presentedToken(authorization: string | undefined, query: unknown): string | null {
  if (authorization !== undefined) {
    // FastAPI's HTTPBearer: `scheme, _, credentials = value.partition(" ")`, the scheme in any
    // case; a tab or a second space is not a separator (the credentials then fail to match).
    const space = authorization.indexOf(' ');
    if (space > 0 && authorization.slice(0, space).toLowerCase() === 'bearer') {
      const credentials = authorization.slice(space + 1);
      if (credentials !== '') return credentials;
    }
  }
  if (query !== null && typeof query === 'object') {
    const token = (query as Record<string, unknown>).token;
    if (typeof token === 'string' && token !== '') return token;
    // Repeated, the last non-empty one counts (FastAPI takes the last value of a scalar);
    // `?token&token=…` must not present an empty token.
    if (Array.isArray(token)) {
      const last = token.findLast((t): t is string => typeof t === 'string' && t !== '');
      if (last !== undefined) return last;
    }
  }
  return null;
}
