import { createPublicKey, verify } from 'node:crypto';
import { SIGNED_SUMS_CONTEXT } from './wire/agent-update.js';

/** The most of a signature header that is read (an Ed25519 signature is 88 base64 characters). */
const SIGNATURE_MAX_CHARS = 200;

/**
 * Whether `signature` (base64) is the board's Ed25519 signature of this SHA256SUMS text under
 * `updateKey` (the raw public key, base64url, as the enroll pinned it). Anything malformed is
 * simply not a valid signature.
 */
export function sumsSigned(sums: string, signature: string | null, updateKey: string): boolean {
  if (signature === null || signature.length > SIGNATURE_MAX_CHARS) return false;
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(signature.trim())) return false;
  try {
    const key = createPublicKey({
      key: { kty: 'OKP', crv: 'Ed25519', x: updateKey },
      format: 'jwk',
    });
    const bytes = Buffer.from(SIGNED_SUMS_CONTEXT + sums, 'utf8');
    return verify(null, bytes, key, Buffer.from(signature.trim(), 'base64'));
  } catch {
    return false;
  }
}
