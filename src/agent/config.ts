import { dirname, isAbsolute, join, resolve } from 'node:path';
import type { CliOptions } from '../shared/cli.js';
import { ConfigError, type ConfigProblem } from '../shared/config/config-error.js';
import { type EnvOverride, loadConfig } from '../shared/config/load-config.js';
import { type Labels, labelsProblem, NO_LABELS, toLabels } from '../shared/labels.js';
import { FilePath, readCa, readTlsPair, TlsFile, type TlsPair } from '../shared/tls/pem-files.js';
import { type Static, Type } from '../shared/typebox.js';
import { UPDATE_KEY_PATTERN } from '../shared/wire/agent-update.js';
import { HttpUrl, NAME_PATTERN, Name, Token } from '../shared/wire/common.js';
import { Seconds, type ServiceConfig, ServiceFile, serviceSettings } from './service-config.js';

/** The schema of an agent's YAML file. */
export const AgentConfigFile = Type.Object(
  {
    name: Name,
    host: Type.Optional(Type.String({ minLength: 1 })),
    port: Type.Optional(Type.Integer({ minimum: 0, maximum: 65535 })),
    token: Token,
    board_key: Type.Optional(Token),
    bell_token: Type.Optional(Token),
    location: Type.Optional(HttpUrl),
    proxy: Type.Optional(HttpUrl),
    data_dir: Type.Optional(Type.String({ minLength: 1 })),
    tls: Type.Optional(TlsFile),
    labels: Type.Optional(
      Type.Record(Type.String(), Type.String(), {
        description:
          'key: value labels the overview carries (DESIGN section 14); a board label wins on the same key',
      }),
    ),
    services: Type.Optional(
      Type.Record(Type.String({ pattern: NAME_PATTERN }), ServiceFile, {
        additionalProperties: false,
      }),
    ),
    gpu_interval: Type.Optional(
      Type.Number({
        minimum: 1,
        maximum: 3600,
        description: 'seconds between two GPU reads (default: report.interval, else 10)',
      }),
    ),
    sample_interval: Type.Optional(
      Type.Number({
        minimum: 1,
        maximum: 3600,
        description:
          'seconds between two reads of the containers, processes, network, temperatures and disk health ' +
          '(default: report.interval, else 10)',
      }),
    ),
    hwmon: Type.Optional(
      Type.String({
        minLength: 1,
        description: 'where temperatures are read (default /sys/class/hwmon)',
      }),
    ),
    containers: Type.Optional(
      Type.Object(
        {
          socket: Type.Optional(
            Type.String({
              minLength: 1,
              description:
                "the Docker Engine API's unix socket (default: DOCKER_HOST when unix://, else /var/run/docker.sock, else /run/podman/podman.sock)",
            }),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    update_from_board: Type.Optional(
      Type.Union([Type.Boolean(), Type.String({ pattern: '^https://[^\\s]+$', maxLength: 2048 })], {
        description:
          "true: take updates of the agent's own file from the board of report: (its URL and ca); " +
          'an https URL: from that board (a polled machine, without report:); false or absent: never',
      }),
    ),
    update_key: Type.Optional(
      Type.String({
        pattern: UPDATE_KEY_PATTERN,
        description:
          "the board's update-signing public key (Ed25519, base64url; GET /agent/update-key): an update is taken only when the board's SHA256SUMS verifies against it. The enroll writes it; without it updates are refused",
      }),
    ),
    report: Type.Optional(
      Type.Object(
        {
          board: HttpUrl,
          token: Token,
          interval: Type.Optional(Seconds),
          ca: Type.Optional(FilePath),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
export type AgentConfigFile = Static<typeof AgentConfigFile>;

/** Everything the agent needs to run, defaults applied. */
export interface AgentSettings {
  source: string;
  name: string;
  host: string;
  port: number;
  token: string;
  boardKey: string | null;
  /** Opens POST /api/bell alone: what the hooks of AI coding tools carry (null: none). */
  bellToken: string | null;
  /** What browsers are told; null means "http://host:port as actually listening". */
  location: string | null;
  proxy: string | null;
  dataDir: string;
  /** The agent's certificate and key: it serves HTTPS (and WSS) when set. */
  tls: TlsPair | null;
  services: ServiceConfig[];
  /** `labels:`, carried in every overview (NO_LABELS: none, and the overview has no `labels`). */
  labels: Labels;
  /** `ca`: PEM of the CA trusted for an https `board` (null: the system's CAs). */
  report: { board: string; token: string; intervalMs: number; ca: string | null } | null;
  /** The board updates of the agent's own file come from (update_from_board), or null: off. */
  updateFrom: { board: string; ca: string | null; key: string | null } | null;
  /** Between two reads of nvidia-smi / rocm-smi: gpu_interval, else the report interval, else 10 s. */
  gpuIntervalMs: number;
  /** Between two reads of containers, processes, network, temperatures, disk health: sample_interval, else the report interval, else 10 s. */
  sampleIntervalMs: number;
  /** The hwmon tree temperatures are read from: `hwmon` (relative to the file), else /sys/class/hwmon. */
  hwmonRoot: string;
  /** `containers.socket` (absolute), or null: DOCKER_HOST or the usual sockets are looked for. */
  containerSocket: string | null;
  /**
   * Environment variables a secret field (token, board_key, report.token) was read from with
   * `${NAME}`: removed from what services inherit, like the PANOPTES_* secrets.
   */
  secretEnv?: readonly string[];
}

/** The fields of the agent's file that hold secrets. */
const SECRET_FIELDS = new Set(['token', 'board_key', 'bell_token', 'report.token']);

export const AGENT_ENV_OVERRIDES: readonly EnvOverride[] = [
  { env: 'PANOPTES_AGENT_TOKEN', field: ['token'] },
  { env: 'PANOPTES_BOARD_KEY', field: ['board_key'] },
  { env: 'PANOPTES_BELL_TOKEN', field: ['bell_token'] },
  { env: 'PANOPTES_REGISTRATION_TOKEN', field: ['report', 'token'] },
];

export const AGENT_DEFAULTS = {
  host: '127.0.0.1',
  port: 8701,
  reportInterval: 10,
  gpuInterval: 10,
  sampleInterval: 10,
  hwmon: '/sys/class/hwmon',
} as const;

/** Reads and checks an agent's YAML file; throws ConfigError naming the file and each bad field. */
export function loadAgentConfig(
  file: string,
  cli: CliOptions = {},
  env: NodeJS.ProcessEnv = process.env,
): AgentSettings {
  const path = resolve(file);
  const secretEnv = new Set<string>();
  const raw = loadConfig(path, AgentConfigFile, {
    env,
    overrides: AGENT_ENV_OVERRIDES,
    onEnvReference: (name, field) => {
      if (SECRET_FIELDS.has(field)) secretEnv.add(name);
    },
  });
  return { ...agentSettings(raw, path, cli), secretEnv: [...secretEnv] };
}

/** Applies defaults and cross-field checks to a schema-valid agent config. */
export function agentSettings(
  raw: AgentConfigFile,
  file: string,
  cli: CliOptions = {},
): AgentSettings {
  const problems: ConfigProblem[] = [];
  const services = serviceSettings(raw.services ?? {}, problems);
  if (raw.board_key !== undefined && raw.board_key === raw.token) {
    problems.push({ field: 'board_key', problem: 'must differ from token (it has less power)' });
  }
  if (raw.bell_token !== undefined) {
    if (raw.bell_token === raw.token) {
      problems.push({ field: 'bell_token', problem: 'must differ from token (it has less power)' });
    } else if (raw.bell_token === raw.board_key) {
      problems.push({ field: 'bell_token', problem: 'must differ from board_key' });
    }
  }
  const baseDir = dirname(file);
  const tls = raw.tls === undefined ? null : readTlsPair(raw.tls, baseDir, 'tls', problems);
  const reportCa =
    raw.report?.ca === undefined ? null : readCa(raw.report.ca, baseDir, 'report.ca', problems);
  if (raw.update_from_board === true && raw.report === undefined) {
    problems.push({
      field: 'update_from_board',
      problem: "true takes the board of report:, which is not set; give the board's https URL",
    });
  }
  const labelProblem = raw.labels === undefined ? null : labelsProblem(raw.labels);
  if (labelProblem !== null) problems.push({ field: 'labels', problem: labelProblem });
  if (problems.length > 0) throw new ConfigError(file, problems);
  const dataDir = raw.data_dir ?? 'data';
  return {
    source: file,
    name: raw.name,
    host: cli.host ?? raw.host ?? AGENT_DEFAULTS.host,
    port: cli.port ?? raw.port ?? AGENT_DEFAULTS.port,
    token: raw.token,
    boardKey: raw.board_key ?? null,
    bellToken: raw.bell_token ?? null,
    location: raw.location ?? null,
    proxy: raw.proxy ?? null,
    dataDir: isAbsolute(dataDir) ? dataDir : join(baseDir, dataDir),
    tls,
    services,
    labels: raw.labels === undefined ? NO_LABELS : toLabels(raw.labels),
    report: raw.report
      ? {
          board: raw.report.board.replace(/\/$/, ''),
          token: raw.report.token,
          intervalMs: (raw.report.interval ?? AGENT_DEFAULTS.reportInterval) * 1000,
          ca: reportCa,
        }
      : null,
    updateFrom: updateSource(raw.update_from_board, raw.report?.board, reportCa, raw.update_key),
    gpuIntervalMs:
      (raw.gpu_interval ??
        (raw.report ? (raw.report.interval ?? AGENT_DEFAULTS.reportInterval) : undefined) ??
        AGENT_DEFAULTS.gpuInterval) * 1000,
    sampleIntervalMs:
      (raw.sample_interval ??
        (raw.report ? (raw.report.interval ?? AGENT_DEFAULTS.reportInterval) : undefined) ??
        AGENT_DEFAULTS.sampleInterval) * 1000,
    hwmonRoot: raw.hwmon === undefined ? AGENT_DEFAULTS.hwmon : resolve(baseDir, raw.hwmon),
    containerSocket:
      raw.containers?.socket === undefined ? null : resolve(baseDir, raw.containers.socket),
  };
}

/**
 * Where updates come from: `true` is the board of report: with its CA; a URL is that board, with
 * report:'s CA only when it is the same board (else the system's CAs).
 */
function updateSource(
  value: boolean | string | undefined,
  reportBoard: string | undefined,
  reportCa: string | null,
  updateKey: string | undefined,
): AgentSettings['updateFrom'] {
  if (value === undefined || value === false) return null;
  const key = updateKey ?? null;
  const report = reportBoard?.replace(/\/$/, '');
  if (value === true) return report === undefined ? null : { board: report, ca: reportCa, key };
  const board = value.replace(/\/+$/, '');
  return { board, ca: board === report ? reportCa : null, key };
}
