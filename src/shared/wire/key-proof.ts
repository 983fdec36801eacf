import { createHmac } from 'node:crypto';
import { tokenEquals } from '../http/tokens.js';

/** How far `key_proof_at` may be from the board's clock, either way. */
export const KEY_PROOF_WINDOW_MS = 5 * 60 * 1000;

/**
 * The untimed proof of version 0.1.0 agents: an HMAC of name and location under the key the
 * board keeps for the name (`announced_keys`). The board relays that key only to a location
 * reported with a valid proof, so the registration token is not enough to redirect it. The
 * key itself never travels. Being the same in every report, it can be replayed: see
 * timedKeyProof, and docs/internals/decisions.md for the transition.
 */
export function keyProof(key: string, name: string, location: string): string {
  return createHmac('sha256', key).update(`panoptes-report\n${name}\n${location}`).digest('hex');
}

/** The proof agents send now: it also covers `key_proof_at` (ISO 8601), the time of the report. */
export function timedKeyProof(key: string, name: string, location: string, at: string): string {
  return createHmac('sha256', key)
    .update(`panoptes-report-at\n${name}\n${location}\n${at}`)
    .digest('hex');
}

/** The members of a report that prove its key. */
export interface ProvedReport {
  name: string;
  location: string;
  key_proof?: string | undefined;
  key_proof_at?: string | undefined;
}

/**
 * Checks reports' key proofs for the names the board holds keys for, remembering per name the
 * time of the last accepted timed proof (one number per keyed name, so bounded by the config):
 * a timed proof must be within ±5 minutes of the board's clock and newer than the last one
 * accepted, so a captured report cannot be replayed. The untimed form is still accepted from a
 * name that has never sent a timed one (agents of 0.1.0), and refused once it has.
 */
export class KeyProofCheck {
  private readonly lastAt = new Map<string, number>();

  /** The time (ms) of the name's last accepted timed proof, or null (kept across restarts). */
  lastAccepted(name: string): number | null {
    return this.lastAt.get(name) ?? null;
  }

  /** Brings back a name's last accepted time from the store (a replay stays refused). */
  restore(name: string, at: number): void {
    if (at > (this.lastAt.get(name) ?? 0)) this.lastAt.set(name, at);
  }

  /** Why the report does not prove the key, or null when it does. */
  problem(key: string, report: ProvedReport, now: number): string | null {
    const { name, location, key_proof: proof, key_proof_at: at } = report;
    if (proof === undefined) return 'it carries no key_proof';
    if (at === undefined) {
      if (this.lastAt.has(name)) {
        return 'its agent has sent timed proofs (key_proof_at); an untimed one is refused as a possible replay';
      }
      return tokenEquals(proof, keyProof(key, name, location)) ? null : 'its key_proof is wrong';
    }
    const time = Date.parse(at);
    if (!Number.isFinite(time)) return 'its key_proof_at is not an ISO 8601 time';
    if (Math.abs(now - time) > KEY_PROOF_WINDOW_MS) {
      return "its key_proof_at is more than 5 minutes from the board's clock (check the clocks)";
    }
    if (!tokenEquals(proof, timedKeyProof(key, name, location, at))) {
      return 'its key_proof is wrong';
    }
    const last = this.lastAt.get(name);
    if (last !== undefined && time <= last) {
      return 'its key_proof_at is not newer than the last accepted report (a replay?)';
    }
    this.lastAt.set(name, time);
    return null;
  }
}

/**
 * The proof of GET /api/checks/mine for a name the board holds a key for: an HMAC of the name
 * and the time of the request (ISO 8601), under that key.
 */
export function checksKeyProof(key: string, name: string, at: string): string {
  return createHmac('sha256', key).update(`panoptes-checks-at\n${name}\n${at}`).digest('hex');
}

/** Why a GET /api/checks/mine does not prove the name's key, or null when it does. */
export function checksProofProblem(
  key: string,
  name: string,
  proof: string | undefined,
  at: string | undefined,
  now: number,
): string | null {
  if (proof === undefined || at === undefined) return 'it carries no key_proof and key_proof_at';
  const time = Date.parse(at);
  if (!Number.isFinite(time)) return 'its key_proof_at is not an ISO 8601 time';
  if (Math.abs(now - time) > KEY_PROOF_WINDOW_MS)
    return "its key_proof_at is more than 5 minutes from the board's clock (check the clocks)";
  return tokenEquals(proof, checksKeyProof(key, name, at)) ? null : 'its key_proof is wrong';
}
