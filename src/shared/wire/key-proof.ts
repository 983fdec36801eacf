import { createHmac } from 'node:crypto';

/**
 * What an announcing agent sends to show it holds the key the board keeps for its name
 * (`announced_keys`): an HMAC of its name and location under that key. The board relays that
 * key only to a location reported with a valid proof, so the shared registration token is not
 * enough to redirect a machine's key to another address. The key itself never travels.
 */
export function keyProof(key: string, name: string, location: string): string {
  return createHmac('sha256', key).update(`panoptes-report\n${name}\n${location}`).digest('hex');
}
