/** The most of a SHA256SUMS file that is read: a few lines, one per agent file. */
export const SUMS_MAX_BYTES = 64 * 1024;

const LINE = /^([0-9a-fA-F]{64}) [ *](.+)$/;

/**
 * Parses `sha256sum` output ("HEX  NAME" or "HEX *NAME" per line) into name → lowercase hex.
 * Lines that are not such a line are skipped; a name listed twice with different sums is
 * dropped (it cannot be trusted either way).
 */
export function parseSha256Sums(text: string): Map<string, string> {
  const sums = new Map<string, string>();
  const conflicting = new Set<string>();
  for (const raw of text.split('\n')) {
    const match = LINE.exec(raw.replace(/\r$/, ''));
    if (match === null) continue;
    const [, hex, name] = match as unknown as [string, string, string];
    const sum = hex.toLowerCase();
    const seen = sums.get(name);
    if (seen !== undefined && seen !== sum) conflicting.add(name);
    sums.set(name, sum);
  }
  for (const name of conflicting) sums.delete(name);
  return sums;
}
