import { BOARD_RUNNER, type CheckBook, PUSH_RUNNER } from '../checks/check-book.js';
import type { CheckSight } from '../checks/check-rows.js';
import { freshForMs } from '../checks/check-state.js';
import { escapeLabel } from './label-value.js';

/** Runners that are no machine: every caller sees them. */
const OUTSIDE = new Set([BOARD_RUNNER, PUSH_RUNNER]);

const HEADS = {
  up: '# HELP panoptes_check_up 1 when the check is up, 0 when down (no sample while unknown)\n# TYPE panoptes_check_up gauge\n',
  duration:
    "# HELP panoptes_check_duration_seconds the response time of each runner's last result that still counts\n# TYPE panoptes_check_duration_seconds gauge\n",
  cert: '# HELP panoptes_check_cert_expiry_seconds seconds until the soonest certificate expiry a runner saw (negative: expired)\n# TYPE panoptes_check_cert_expiry_seconds gauge\n',
};

/**
 * The checks' families, made at each scrape (a few lines per check): only the checks `sight`
 * sees and, of their runners, the board, push and the machines it sees (null: everything).
 */
export function checkFamilies(book: CheckBook, sight: CheckSight | null, now: number): string {
  const settings = new Map(book.settings().map((c) => [c.name, c]));
  let up = '';
  let duration = '';
  let cert = '';
  for (const c of book.list()) {
    const s = settings.get(c.name);
    if (s === undefined || (sight !== null && !sight.check(c.name, s.labels))) continue;
    const check = `check="${escapeLabel(c.name)}"`;
    if (c.state !== 'unknown') up += `panoptes_check_up{${check}} ${c.state === 'up' ? 1 : 0}\n`;
    const oldest = now - freshForMs(s);
    for (const r of c.runners) {
      if (Date.parse(r.at) < oldest) continue;
      if (sight !== null && !OUTSIDE.has(r.machine) && !sight.machine(r.machine)) continue;
      duration += `panoptes_check_duration_seconds{${check},runner="${escapeLabel(r.machine)}"} ${r.ms / 1000}\n`;
    }
    const expiry = book.soonestCertExpiry(c.name);
    if (expiry !== null)
      cert += `panoptes_check_cert_expiry_seconds{${check}} ${Math.round((expiry - now) / 1000)}\n`;
  }
  if (settings.size === 0) return '';
  return HEADS.up + up + HEADS.duration + duration + HEADS.cert + cert;
}
