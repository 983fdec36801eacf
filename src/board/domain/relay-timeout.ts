/** The longest the board waits for a relayed action's answer, whatever a machine states. */
export const RELAY_TIMEOUT_MAX_MS = 10 * 60 * 1000;

/**
 * How long to wait for the answer to an action on service `what`: the `timeout_s` the machine's
 * last overview states for it, plus `poll_timeout` for the way there and back, at most
 * RELAY_TIMEOUT_MAX_MS; `poll_timeout` alone when the overview does not say (an older agent,
 * an unknown service, no overview yet). The overview is the machine's text: anything but a
 * positive number is ignored.
 */
export function relayTimeoutMs(
  overview: Buffer | null,
  what: string,
  pollTimeoutMs: number,
): number {
  const seconds = statedTimeoutS(overview, what);
  if (seconds === null) return pollTimeoutMs;
  return Math.max(pollTimeoutMs, Math.min(RELAY_TIMEOUT_MAX_MS, seconds * 1000 + pollTimeoutMs));
}

function statedTimeoutS(overview: Buffer | null, what: string): number | null {
  if (overview === null) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(overview.toString('utf8'));
  } catch {
    return null;
  }
  const services =
    parsed !== null && typeof parsed === 'object' && 'services' in parsed ? parsed.services : null;
  if (!Array.isArray(services)) return null;
  for (const s of services) {
    if (s === null || typeof s !== 'object' || (s as { name?: unknown }).name !== what) continue;
    const t = (s as { timeout_s?: unknown }).timeout_s;
    return typeof t === 'number' && Number.isFinite(t) && t > 0 ? t : null;
  }
  return null;
}
