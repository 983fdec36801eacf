import { createHash } from 'node:crypto';
import type { BoardSettings } from './config.js';

/** What a reload changes, by field name (never a value: several of them are secrets). */
export interface SettingsChange {
  /** Fields that changed and take effect now. */
  applied: string[];
  /** Fields that changed in the file but keep their running value until a restart. */
  restart: string[];
}

type Field = [name: string, read: (s: BoardSettings) => unknown];

/** Fields a running board cannot change: the listening socket, its files, the registry's caps. */
const RESTART_FIELDS: readonly Field[] = [
  ['host', (s) => s.host],
  ['port', (s) => s.port],
  ['data_dir', (s) => s.dataDir],
  ['store', (s) => JSON.stringify(s.store)],
  ['board_id', (s) => s.boardId],
  ['max_announced', (s) => s.maxAnnounced],
  ['max_announced_mb', (s) => s.maxAnnouncedBytes],
  ['keep_alive', (s) => s.keepAliveMs],
  // Turning TLS on or off changes the kind of server; a new certificate does not.
  ['tls (on/off)', (s) => s.tls !== null],
];

const LIVE_FIELDS: readonly Field[] = [
  ['board_token', (s) => s.boardToken],
  ['registration_token', (s) => s.registrationToken],
  ['sweep_interval', (s) => s.sweepIntervalMs],
  ['poll_timeout', (s) => s.pollTimeoutMs],
  ['stale_after', (s) => s.staleAfterMs],
  ['sweep_concurrency', (s) => s.sweepConcurrency],
  ['tls', (s) => (s.tls === null ? null : `${s.tls.cert}\n${s.tls.key}`)],
  ['ca', (s) => s.ca],
  ['machines', (s) => JSON.stringify(s.machines)],
  [
    'checks',
    (s) =>
      JSON.stringify(
        s.checks.map((c) => ({
          ...c,
          conditions: c.conditions.map((x) => x.text),
          push:
            c.push === null
              ? null
              : { ...c.push, token: createHash('sha256').update(c.push.token).digest('hex') },
        })),
      ),
  ],
  ['announced_keys', (s) => JSON.stringify([...s.announcedKeys].sort())],
  ['announced_keys_only', (s) => s.announcedKeysOnly],
  ['trusted_proxies', (s) => JSON.stringify(s.trustedProxies ?? [])],
  ['public_url', (s) => s.publicUrl],
  ['agent_files', (s) => s.agentFiles ?? null],
  ['failover_after', (s) => s.failoverAfterMs],
  ['notify', (s) => JSON.stringify(s.notify)],
  ['push', (s) => JSON.stringify(s.push)],
  // Selectors are written as their text (JSON.stringify keeps it, drops the matcher).
  ['auth', (s) => JSON.stringify(s.auth)],
];

/** The fields that differ between the running settings and a reloaded file. */
export function diffSettings(running: BoardSettings, next: BoardSettings): SettingsChange {
  const differs = ([, read]: Field) => read(running) !== read(next);
  const restart = RESTART_FIELDS.filter(differs).map(([name]) => name);
  const tlsSwitched = restart.includes('tls (on/off)');
  const applied = LIVE_FIELDS.filter(differs)
    .map(([name]) => name)
    .filter((name) => !(tlsSwitched && name === 'tls'));
  return { applied, restart };
}

/** `next` with the running value of every field that needs a restart. */
export function keepRestartFields(running: BoardSettings, next: BoardSettings): BoardSettings {
  const tlsSwitched = (running.tls === null) !== (next.tls === null);
  return {
    ...next,
    host: running.host,
    port: running.port,
    dataDir: running.dataDir,
    store: running.store,
    boardId: running.boardId,
    maxAnnounced: running.maxAnnounced,
    maxAnnouncedBytes: running.maxAnnouncedBytes,
    keepAliveMs: running.keepAliveMs,
    tls: tlsSwitched ? running.tls : next.tls,
  };
}

/** Whether the CAs the board trusts for agents differ (a new client is then needed). */
export function casChanged(running: BoardSettings, next: BoardSettings): boolean {
  const cas = (s: BoardSettings) =>
    JSON.stringify([s.ca, ...s.machines.map((m) => m.ca ?? null)].filter((c) => c !== null).sort());
  return cas(running) !== cas(next);
}
