import { hash as argon2Hash, verify as argon2Verify } from '@node-rs/argon2';

/** DESIGN 15: at least 12 characters; the upper bound keeps hashing cheap for an attacker's input. */
export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 1024;

/** Argon2id in @node-rs/argon2's `Algorithm` (a const enum, not readable across modules). */
const ARGON2ID = 2;

/** argon2id at OWASP's minimum (19 MiB, 2 passes, 1 lane): the package's 64 MiB costs a shared board more. */
const OPTIONS = { algorithm: ARGON2ID, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

/** Why a new password is not taken, or null. */
export function passwordProblem(password: string): string | null {
  const length = [...password].length;
  if (length < PASSWORD_MIN) return `A password needs at least ${PASSWORD_MIN} characters`;
  if (length > PASSWORD_MAX) return `A password has at most ${PASSWORD_MAX} characters`;
  return null;
}

export function hashPassword(password: string): Promise<string> {
  return argon2Hash(password, OPTIONS);
}

/** A hash nobody's password matches: verified against when the name is unknown (same time). */
let dummy: Promise<string> | null = null;

/**
 * Whether `password` matches `hash`; with no hash (an unknown name, or a person without a
 * password) a dummy hash is verified all the same, so the answer takes as long either way.
 */
export async function verifyPassword(hash: string | undefined, password: string): Promise<boolean> {
  dummy ??= argon2Hash(`no person has this password ${Math.random()}`, OPTIONS);
  const against = hash ?? (await dummy);
  try {
    const ok = await argon2Verify(against, password);
    return ok && hash !== undefined;
  } catch {
    return false;
  }
}
