import { setServerCertificate } from '../../shared/tls/server-certificate.js';
import type { Access } from '../auth/access.js';
import type { CheckBook } from '../checks/check-book.js';
import type { BoardSettings } from '../config/config.js';
import type { Board } from '../domain/board.js';
import type { BoardLabels } from '../domain/labels.js';
import type { Notifier } from '../notify/notifier.js';
import type { Polling } from './build-polling.js';
import type { CurrentSettings } from './current-settings.js';
import type { Http } from './register-routes.js';

/** What a reload changes. */
export interface Reloadable {
  current: CurrentSettings;
  http: Http;
  notifier: Notifier;
  polling: Polling;
  board: Board;
  labels: BoardLabels;
  access: Access;
  checks: CheckBook;
}

/**
 * Switches the running board to reloaded settings, one small step per consumer of them (the
 * tokens, the proxies, the notifications, the pollers, the certificate, the machines). Answers
 * the configured machines added and removed.
 */
export function applySettings(
  parts: Reloadable,
  next: BoardSettings,
): { added: string[]; removed: string[] } {
  const { http, notifier, polling, board } = parts;
  const previous = parts.current.replace(next);
  http.auth.boardToken = next.boardToken;
  http.auth.registrationToken = next.registrationToken;
  if (next.boardToken !== previous.boardToken) http.tokenChanges.changed();
  http.trustedProxies.set(next.trustedProxies ?? []);
  http.headerProxies.set(next.auth.trustedHeader?.proxies ?? []);
  parts.access.configure(next.auth);
  parts.checks.configure(next.checks);
  notifier.configure(next.notify);
  polling.reload(previous, next);
  if (next.tls !== null && next.tls !== previous.tls)
    setServerCertificate(http.app.server, next.tls);
  const changed = board.reconfigure(next);
  parts.labels.configure(next.machines);
  return changed;
}
