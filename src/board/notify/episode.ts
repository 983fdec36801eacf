import type { Rule } from './config.js';

/** What a rule has sent for one machine (or one of its metrics, containers, disks) in one episode. */
export interface Episode {
  /** ms of the first message; null while held back by a silence. */
  sentAt: number | null;
  lastAt: number;
  reminders: number;
  /** Its silence was already reported (journaled once, not every sweep). */
  silencedNoted: boolean;
}

/** Whether a reminder of `episode` is due under `rule` at `now`. */
export function remindDue(rule: Rule, episode: Episode, now: number): boolean {
  return (
    rule.repeatMs > 0 &&
    (rule.repeatMax === null || episode.reminders < rule.repeatMax) &&
    now - episode.lastAt >= rule.repeatMs
  );
}
