import { BOARD_RUNNER, type CheckBook, PUSH_RUNNER } from '../checks/check-book.js';
import type { CheckHistoryPort } from '../checks/ports.js';
import type { Ownership } from '../cluster/ownership.js';

/**
 * Feeds the checks' history from the check book: each result once. A runner's overview carries
 * its last results again in every report, so only a result newer than the last one recorded of
 * that runner is kept. Of several boards (every board sees every machine's overview), a
 * machine's results are recorded by the board that owns the machine, as its history is; the
 * board's own runs by the board that ran them (the check's owner) and a beat by the board it
 * reached.
 */
export function wireCheckHistory(
  checks: Pick<CheckBook, 'onResult' | 'onRemoved'>,
  history: CheckHistoryPort,
  ownership: Pick<Ownership, 'owns'>,
): void {
  const lastAt = new Map<string, Map<string, number>>();
  checks.onResult((runner, result) => {
    const own = runner === BOARD_RUNNER || runner === PUSH_RUNNER || ownership.owns(runner);
    if (!own) return;
    const at = Date.parse(result.at);
    if (!Number.isFinite(at)) return;
    let runners = lastAt.get(result.name);
    if (runners === undefined) {
      runners = new Map();
      lastAt.set(result.name, runners);
    }
    if (at <= (runners.get(runner) ?? Number.NEGATIVE_INFINITY)) return;
    runners.set(runner, at);
    const ms = result.ok && Number.isFinite(result.ms) && result.ms >= 0 ? result.ms : null;
    history.record([{ check: result.name, runner, at, ok: result.ok, ms }]);
  });
  checks.onRemoved((check) => {
    lastAt.delete(check);
    history.forgotten(check);
  });
}
