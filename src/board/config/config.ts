import { hostname } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import type { CliOptions } from '../../shared/cli.js';
import { ConfigError, type ConfigProblem } from '../../shared/config/config-error.js';
import { type EnvOverride, loadConfig } from '../../shared/config/load-config.js';
import { proxyEntryProblem } from '../../shared/http/client-address.js';
import {
  FilePath,
  readCa,
  readTlsPair,
  TlsFile,
  type TlsPair,
} from '../../shared/tls/pem-files.js';
import { type Static, Type } from '../../shared/typebox.js';
import { HttpUrl, NAME_PATTERN, Name, Token } from '../../shared/wire/common.js';
import { AuthConfig, type AuthSettings, authSettings } from '../auth/auth-config.js';
import { type CheckSettings, ChecksConfig, readChecks } from '../checks/check-config.js';
import type { DomainSettings } from '../domain/settings.js';
import { HistoryConfig, type HistorySettings, historySettings } from '../history/settings.js';
import { NotifyConfigFile, type NotifySettings, notifySettings } from '../notify/config.js';
import { PushConfigFile, type PushSettings, pushSettings } from '../notify/push-config.js';
import { GroupsConfig, LabelsConfig, readGroups, readLabels } from './label-config.js';

const Seconds = Type.Number({ exclusiveMinimum: 0 });

const ConfiguredMachine = Type.Object(
  {
    name: Name,
    url: HttpUrl,
    location: Type.Optional(HttpUrl),
    key: Token,
    ca: Type.Optional(FilePath),
    labels: Type.Optional(LabelsConfig),
  },
  { additionalProperties: false },
);

/** The schema of `DIR/board.yaml`. */
export const BoardConfigFile = Type.Object(
  {
    host: Type.Optional(Type.String({ minLength: 1 })),
    port: Type.Optional(Type.Integer({ minimum: 0, maximum: 65535 })),
    board_token: Token,
    registration_token: Type.Optional(Token),
    sweep_interval: Type.Optional(Seconds),
    poll_timeout: Type.Optional(Seconds),
    stale_after: Type.Optional(Seconds),
    max_announced: Type.Optional(Type.Integer({ minimum: 0 })),
    max_announced_mb: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
    sweep_concurrency: Type.Optional(Type.Integer({ minimum: 1, maximum: 100000 })),
    data_dir: Type.Optional(Type.String({ minLength: 1 })),
    board_id: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9._:@-]{0,99}$' })),
    failover_after: Type.Optional(Seconds),
    keep_alive: Type.Optional(Seconds),
    store: Type.Optional(
      Type.Union([
        Type.String({ minLength: 1, maxLength: 2000 }),
        Type.Object(
          { url: Type.String({ minLength: 1, maxLength: 2000 }), ca: Type.Optional(FilePath) },
          { additionalProperties: false },
        ),
      ]),
    ),
    tls: Type.Optional(TlsFile),
    ca: Type.Optional(FilePath),
    trusted_proxies: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { maxItems: 1000 })),
    machines: Type.Optional(Type.Array(ConfiguredMachine)),
    groups: Type.Optional(GroupsConfig),
    checks: Type.Optional(ChecksConfig),
    announced_keys_only: Type.Optional(Type.Boolean()),
    public_url: Type.Optional(HttpUrl),
    agent_files: Type.Optional(FilePath),
    notify: Type.Optional(NotifyConfigFile),
    push: Type.Optional(PushConfigFile),
    history: Type.Optional(HistoryConfig),
    auth: Type.Optional(AuthConfig),
    announced_keys: Type.Optional(
      Type.Record(Type.String({ pattern: NAME_PATTERN }), Token, { additionalProperties: false }),
    ),
  },
  { additionalProperties: false },
);
export type BoardConfigFile = Static<typeof BoardConfigFile>;

/**
 * Everything the board needs to run, defaults applied and paths made absolute (with what the
 * domain reads: the machines, their keys, the sweep's and the announcements' limits).
 */
export interface BoardSettings extends DomainSettings {
  /** The config directory (where `lang/` lives), or null for the embedded default. */
  configDir: string | null;
  host: string;
  port: number;
  boardToken: string;
  registrationToken: string | null;
  sweepIntervalMs: number;
  maxAnnounced: number;
  dataDir: string;
  /** This board's id among the boards of one store (default hostname:port). */
  boardId: string;
  /** A board silent this long (ms) is dead. */
  failoverAfterMs: number;
  /** How long an idle client connection stays open (ms): longer than agents' report interval. */
  keepAliveMs: number;
  /** Where durable state lives: the embedded SQLite in dataDir, or a PostgreSQL server. */
  store: StoreSettings;
  /** The board's own certificate and key: it serves HTTPS (and WSS) when set. */
  tls: TlsPair | null;
  /** Reverse proxies (addresses, CIDR ranges) whose forwarding headers are believed. */
  trustedProxies?: readonly string[];
  /** Where links in notifications point (`public_url`), or null. */
  publicUrl: string | null;
  /** The directory of the agent files the board serves (`agent_files:`), or null for the build's. */
  agentFiles?: string | null;
  /** Channels and rules (`notify:`), checked. */
  notify: NotifySettings;
  /** Web Push (`push:`): the contact of the VAPID key, and which endpoints are taken. */
  push: PushSettings;
  /** Retention of each history tier; null: history off; absent: the defaults. */
  history?: HistorySettings | null;
  /** People: sessions, the identity provider, the authenticating proxy (`auth:`). */
  auth: AuthSettings;
  /** `checks:`, parsed once (conditions and selectors). */
  checks: CheckSettings[];
}

/** `store:` in board.yaml: absent or `sqlite` = embedded; a `postgres://` URL = PostgreSQL. */
export type StoreSettings =
  | { engine: 'sqlite' }
  | { engine: 'postgres'; url: string; caFile: string | null };

export const BOARD_ENV_OVERRIDES: readonly EnvOverride[] = [
  { env: 'PANOPTES_BOARD_TOKEN', field: ['board_token'] },
  { env: 'PANOPTES_REGISTRATION_TOKEN', field: ['registration_token'] },
  { env: 'PANOPTES_STORE', field: ['store'] },
];

export const BOARD_DEFAULTS = {
  host: '127.0.0.1',
  port: 8700,
  sweepInterval: 5,
  pollTimeout: 3,
  staleAfter: 60,
  maxAnnounced: 10_000,
  maxAnnouncedMb: 128,
  sweepConcurrency: 256,
  failoverAfter: 10,
  // Above the agents' default report interval (10 s), as nginx's 75 s: a reporting agent keeps
  // its connection (and its TLS session) from one report to the next.
  keepAlive: 75,
} as const;

/** Reads and checks `DIR/board.yaml`; throws ConfigError naming the file and each bad field. */
export function loadBoardConfig(
  dir: string,
  cli: CliOptions = {},
  env: NodeJS.ProcessEnv = process.env,
): BoardSettings {
  const configDir = resolve(dir);
  const file = join(configDir, 'board.yaml');
  const raw = loadConfig(file, BoardConfigFile, { env, overrides: BOARD_ENV_OVERRIDES });
  return boardSettings(raw, file, configDir, cli);
}

/** Applies defaults and cross-field checks to a schema-valid board config. */
export function boardSettings(
  raw: BoardConfigFile,
  file: string,
  configDir: string | null,
  cli: CliOptions = {},
): BoardSettings {
  const problems: ConfigProblem[] = [];
  const names = new Set<string>();
  const folded = new Set<string>();
  const tls = raw.tls === undefined ? null : readTlsPair(raw.tls, configDir, 'tls', problems);
  const ca = raw.ca === undefined ? null : readCa(raw.ca, configDir, 'ca', problems);
  const machines = (raw.machines ?? []).map((m, i) => {
    // Names are unique without regard to case: ALPHA beside alpha is a look-alike.
    if (folded.has(m.name.toLowerCase())) {
      problems.push({
        field: `machines[${i}].name`,
        problem: `duplicate machine name ${m.name} (names are compared without regard to case)`,
      });
    }
    names.add(m.name);
    folded.add(m.name.toLowerCase());
    const own = m.ca === undefined ? null : readCa(m.ca, configDir, `machines[${i}].ca`, problems);
    return {
      name: m.name,
      url: stripSlash(m.url),
      location: m.location ?? m.url,
      key: m.key,
      ca: own ?? ca,
      ...(m.labels === undefined
        ? {}
        : { labels: readLabels(m.labels, `machines[${i}].labels`, problems) }),
    };
  });
  const groups = readGroups(raw.groups, problems);
  const checks = readChecks(raw.checks, problems);
  for (const name of Object.keys(raw.announced_keys ?? {})) {
    if (folded.has(name.toLowerCase())) {
      problems.push({
        field: `announced_keys.${name}`,
        problem: 'names a configured machine; its key belongs in machines[]',
      });
    }
  }
  problems.push(...trustedProxyProblems(raw.trusted_proxies ?? []));
  const store = storeSettings(raw.store, configDir, problems);
  const notify = notifySettings(raw.notify, problems);
  const push = pushSettings(raw.push, problems);
  const auth = authSettings(raw.auth, problems, (f) =>
    isAbsolute(f) || configDir === null ? f : join(configDir, f),
  );
  for (const [i, c] of (raw.notify?.channels ?? []).entries()) {
    const kind = notify.channels.find((n) => n.name === c.name)?.parsed.kind;
    if (kind === 'webpush' && push.subject === null && raw.push?.subject === undefined) {
      problems.push({
        field: `notify.channels[${i}].url`,
        problem: 'webpush:// needs push.subject (a mailto: or https: contact) in board.yaml',
      });
    }
  }
  if (problems.length > 0) throw new ConfigError(file, problems);
  const dataDir = raw.data_dir ?? 'data';
  return {
    source: file,
    configDir,
    host: cli.host ?? raw.host ?? BOARD_DEFAULTS.host,
    port: cli.port ?? raw.port ?? BOARD_DEFAULTS.port,
    boardToken: raw.board_token,
    registrationToken: raw.registration_token ?? null,
    sweepIntervalMs: (raw.sweep_interval ?? BOARD_DEFAULTS.sweepInterval) * 1000,
    pollTimeoutMs: (raw.poll_timeout ?? BOARD_DEFAULTS.pollTimeout) * 1000,
    staleAfterMs: (raw.stale_after ?? BOARD_DEFAULTS.staleAfter) * 1000,
    maxAnnounced: raw.max_announced ?? BOARD_DEFAULTS.maxAnnounced,
    maxAnnouncedBytes: (raw.max_announced_mb ?? BOARD_DEFAULTS.maxAnnouncedMb) * 1024 * 1024,
    sweepConcurrency: raw.sweep_concurrency ?? BOARD_DEFAULTS.sweepConcurrency,
    dataDir: isAbsolute(dataDir) || configDir === null ? dataDir : join(configDir, dataDir),
    boardId: raw.board_id ?? `${hostname()}:${cli.port ?? raw.port ?? BOARD_DEFAULTS.port}`,
    failoverAfterMs: (raw.failover_after ?? BOARD_DEFAULTS.failoverAfter) * 1000,
    keepAliveMs: (raw.keep_alive ?? BOARD_DEFAULTS.keepAlive) * 1000,
    store,
    tls,
    ca,
    machines,
    groups,
    checks,
    announcedKeys: new Map(Object.entries(raw.announced_keys ?? {})),
    announcedKeysOnly: raw.announced_keys_only ?? false,
    trustedProxies: raw.trusted_proxies ?? [],
    publicUrl: raw.public_url ?? null,
    agentFiles:
      raw.agent_files === undefined
        ? null
        : isAbsolute(raw.agent_files) || configDir === null
          ? raw.agent_files
          : join(configDir, raw.agent_files),
    notify,
    push,
    history: historySettings(raw.history),
    auth,
  };
}

/** Checks `store:`; a problem never quotes the URL (it holds the database password). */
function storeSettings(
  raw: BoardConfigFile['store'],
  configDir: string | null,
  problems: ConfigProblem[],
): StoreSettings {
  if (raw === undefined || raw === 'sqlite') return { engine: 'sqlite' };
  const url = typeof raw === 'string' ? raw : raw.url;
  const field = typeof raw === 'string' ? 'store' : 'store.url';
  let ok = false;
  try {
    const parsed = new URL(url);
    ok =
      (parsed.protocol === 'postgres:' || parsed.protocol === 'postgresql:') &&
      parsed.hostname !== '';
  } catch {
    ok = false;
  }
  if (!ok) {
    problems.push({
      field,
      problem:
        "must be 'sqlite' or a postgres://user:password@host:port/database URL (not shown: it may hold a password)",
    });
    return { engine: 'sqlite' };
  }
  const ca = typeof raw === 'string' || raw.ca === undefined ? null : raw.ca;
  const caFile =
    ca === null ? null : isAbsolute(ca) || configDir === null ? ca : join(configDir, ca);
  return { engine: 'postgres', url, caFile };
}

function stripSlash(url: string): string {
  return url.endsWith('/') ? url.slice(0, -1) : url;
}

function trustedProxyProblems(entries: readonly string[]): ConfigProblem[] {
  return entries.flatMap((entry, i) => {
    const problem = proxyEntryProblem(entry);
    return problem === null ? [] : [{ field: `trusted_proxies[${i}]`, problem }];
  });
}
