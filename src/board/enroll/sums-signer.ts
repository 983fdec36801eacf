import { createPrivateKey, generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { SIGNED_SUMS_CONTEXT } from '../../shared/wire/agent-update.js';
import type { SigningKeys, SigningKeyTable } from '../store/state.js';

/** A fresh Ed25519 key pair. */
export function newSigningKeys(): SigningKeys {
  const { privateKey } = generateKeyPairSync('ed25519');
  const jwk = privateKey.export({ format: 'jwk' });
  return { publicKey: jwk.x as string, privateKey: jwk.d as string };
}

/** What is signed for a SHA256SUMS text (the context line keeps the key to this one use). */
export function signedSumsBytes(sums: string): Buffer {
  return Buffer.from(SIGNED_SUMS_CONTEXT + sums, 'utf8');
}

/**
 * Signs the served files' SHA256SUMS with the store's key. The pair is read (or made and kept)
 * at the first use, not at start, so a board whose store is away still starts; a failed read is
 * tried again at the next use.
 */
export class SumsSigner {
  private loaded: Promise<{ publicKey: string; key: KeyObject }> | null = null;

  constructor(
    private readonly table: SigningKeyTable,
    private readonly now: () => number,
  ) {}

  /** The public key agents pin (`update_key`). */
  async publicKey(): Promise<string> {
    return (await this.load()).publicKey;
  }

  /** The signature (base64) of `sums`, the text GET /agent/SHA256SUMS answers. */
  async sign(sums: string): Promise<string> {
    const { key } = await this.load();
    return sign(null, signedSumsBytes(sums), key).toString('base64');
  }

  private load(): Promise<{ publicKey: string; key: KeyObject }> {
    if (this.loaded === null) {
      const loading = this.table.key(newSigningKeys(), this.now()).then((kept) => ({
        publicKey: kept.publicKey,
        key: createPrivateKey({
          key: { kty: 'OKP', crv: 'Ed25519', x: kept.publicKey, d: kept.privateKey },
          format: 'jwk',
        }),
      }));
      loading.catch(() => {
        if (this.loaded === loading) this.loaded = null;
      });
      this.loaded = loading;
    }
    return this.loaded;
  }
}
