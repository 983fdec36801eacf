import type { ConfigProblem } from '../shared/config/config-error.js';
import { type Static, Type } from '../shared/typebox.js';
import { ACTIONS, Action, type ActionName } from '../shared/wire/common.js';

const Argv = Type.Array(Type.String({ minLength: 1 }), { minItems: 1 });
/** A duration in seconds, above zero. */
export const Seconds = Type.Number({ exclusiveMinimum: 0 });

/** The most variables a service's `env:` may set, and the longest value. */
export const SERVICE_ENV_MAX = { names: 64, valueChars: 4096 } as const;

/** A service's own environment variables: POSIX names, bounded values without NUL. */
const ServiceEnv = Type.Record(
  Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]{0,127}$' }),
  Type.String({ maxLength: SERVICE_ENV_MAX.valueChars, pattern: '^[^\\u0000]*$' }),
  { maxProperties: SERVICE_ENV_MAX.names, additionalProperties: false },
);

/** A container's name or id, as Docker allows them. */
export const CONTAINER_NAME_PATTERN = '^[a-zA-Z0-9][a-zA-Z0-9_.-]{0,254}$';

/** A service in the agent's file (services.NAME). */
export const ServiceFile = Type.Object(
  {
    container: Type.Optional(
      Type.String({
        pattern: CONTAINER_NAME_PATTERN,
        description: "a container's name (or id) on the engine: a service of kind container",
      }),
    ),
    start: Type.Optional(Argv),
    stop: Type.Optional(Argv),
    status: Type.Optional(Argv),
    run: Type.Optional(Argv),
    board: Type.Optional(Type.Array(Action)),
    timeout: Type.Optional(Seconds),
    stop_grace: Type.Optional(Seconds),
    cwd: Type.Optional(Type.String({ minLength: 1 })),
    env: Type.Optional(ServiceEnv),
  },
  { additionalProperties: false },
);

export type ServiceFile = Static<typeof ServiceFile>;

/** What a service waits for by default: a command (s), and a stop's grace (s). */
export const SERVICE_DEFAULTS = { commandTimeout: 60, stopGrace: 10 } as const;

/** A service whose start and stop each run an argv (no shell). */
export interface CommandService {
  kind: 'command';
  name: string;
  start: string[] | null;
  stop: string[] | null;
  status: string[] | null;
  board: ActionName[];
  timeoutMs: number;
  cwd: string | null;
  /** Variables set for its commands, over the agent's environment (secrets removed). */
  env?: Readonly<Record<string, string>>;
}

/** A service the agent runs itself and supervises as a child process. */
export interface ProcessService {
  kind: 'process';
  name: string;
  run: string[];
  board: ActionName[];
  stopGraceMs: number;
  cwd: string | null;
  /** Variables set for its process, over the agent's environment (secrets removed). */
  env?: Readonly<Record<string, string>>;
}

/** A container on the engine that the agent starts and stops (it never creates or removes one). */
export interface ContainerService {
  kind: 'container';
  name: string;
  /** The container's name or id. */
  container: string;
  board: ActionName[];
  /** What a stop gives the container between SIGTERM and SIGKILL. */
  stopGraceMs: number;
}

export type ServiceConfig = CommandService | ProcessService | ContainerService;

/**
 * The services of the agent's file, checked across their fields: each is a container, a process
 * (run) or commands (start/stop/status). What is wrong goes to `problems`, naming the field.
 */
export function serviceSettings(
  files: Record<string, ServiceFile>,
  problems: ConfigProblem[],
): ServiceConfig[] {
  const services: ServiceConfig[] = [];
  for (const [name, s] of Object.entries(files)) {
    const field = `services.${name}`;
    const board = [...new Set(s.board ?? [])];
    const cwd = s.cwd ?? null;
    const env = s.env === undefined ? {} : { env: s.env };
    if (s.container !== undefined) {
      const other = (['run', 'start', 'stop', 'status', 'timeout', 'cwd', 'env'] as const).filter(
        (key) => s[key] !== undefined,
      );
      if (other.length > 0) {
        problems.push({
          field,
          problem: `a container service (container) has no ${other.join(', ')}: the engine starts and stops it`,
        });
        continue;
      }
      services.push({
        kind: 'container',
        name,
        container: s.container,
        board,
        stopGraceMs: (s.stop_grace ?? SERVICE_DEFAULTS.stopGrace) * 1000,
      });
      continue;
    }
    if (s.run !== undefined) {
      if (s.start || s.stop || s.status || s.timeout !== undefined) {
        problems.push({
          field,
          problem: 'a process service (run) has no start, stop, status or timeout',
        });
        continue;
      }
      services.push({
        kind: 'process',
        name,
        run: s.run,
        board,
        stopGraceMs: (s.stop_grace ?? SERVICE_DEFAULTS.stopGrace) * 1000,
        cwd,
        ...env,
      });
      continue;
    }
    if (!s.start && !s.stop) {
      problems.push({ field, problem: 'needs `container`, `run`, or `start` and/or `stop`' });
      continue;
    }
    if (s.stop_grace !== undefined) {
      problems.push({
        field: `${field}.stop_grace`,
        problem: 'only applies to a process service (run) or a container service (container)',
      });
    }
    for (const action of board) {
      if (!s[action]) {
        problems.push({
          field: `${field}.board`,
          problem: `allows ${action}, which the service does not publish`,
        });
      }
    }
    services.push({
      kind: 'command',
      name,
      start: s.start ?? null,
      stop: s.stop ?? null,
      status: s.status ?? null,
      board,
      timeoutMs: (s.timeout ?? SERVICE_DEFAULTS.commandTimeout) * 1000,
      cwd,
      ...env,
    });
  }
  return services;
}

/** The actions a service publishes. */
export function publishedActions(service: ServiceConfig): ActionName[] {
  if (service.kind !== 'command') return [...ACTIONS];
  return ACTIONS.filter((a) => service[a] !== null);
}
