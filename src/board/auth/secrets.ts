import { createHash, randomBytes } from 'node:crypto';

/** A new secret (a session cookie, an API token, a one-time link): 32 random bytes. */
export function newSecret(prefix = ''): string {
  return `${prefix}${randomBytes(32).toString('base64url')}`;
}

/** What the store keeps of a secret: its SHA-256, in hex (the secret itself is never kept). */
export function secretDigest(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** A short public id (a token's, in GET /api/tokens and DELETE). */
export function publicId(): string {
  return randomBytes(9).toString('base64url');
}
