import { CheckOverviewFields } from '../checks/wire.js';
import { LABEL_KEY_PATTERN, LABEL_VALUE_PATTERN, LABELS_MAX } from '../labels.js';
import { type Static, type TSchema, Type } from '../typebox.js';
import { AgentSelfFields } from './agent-update.js';
import { Action, Name } from './common.js';
import { LINES_PATTERN, ONE_LINE_PATTERN } from './free-text.js';
import { MachineNowFields } from './machine-now.js';

/** One line of text a machine reports about itself (a host name, a mount path). */
const Line = (maxLength: number, description?: string) =>
  Type.String({
    maxLength,
    pattern: ONE_LINE_PATTERN,
    description: `${description === undefined ? '' : `${description}; `}one line, no control or bidi-override characters`,
  });

/** Why a session rang: it finished, it wants a person, or it failed. */
export const BellWhy = Type.Union(
  [Type.Literal('finished'), Type.Literal('attention'), Type.Literal('error')],
  { description: 'finished, attention or error' },
);
export type BellWhy = Static<typeof BellWhy>;

export const BELL_TEXT_MAX = 4000;
export const BELL_SESSIONS_MAX = 200;

/** POST /api/bell on the agent. */
export const Bell = Type.Object({
  session: Type.String({
    minLength: 1,
    maxLength: 200,
    pattern: ONE_LINE_PATTERN,
    description: 'one line, no control or bidi-override characters',
  }),
  why: BellWhy,
  text: Type.String({
    maxLength: BELL_TEXT_MAX,
    pattern: LINES_PATTERN,
    description: 'lines (LF and tab allowed), no other control or bidi-override characters',
  }),
});
export type Bell = Static<typeof Bell>;

/** The latest bell of one session, as the overview shows it. */
export const SessionView = Type.Object({
  session: Type.String({ pattern: ONE_LINE_PATTERN }),
  why: BellWhy,
  text: Type.String({ pattern: LINES_PATTERN }),
  at: Type.String({
    maxLength: 40,
    pattern: ONE_LINE_PATTERN,
    description: 'ISO 8601 time the bell rang',
  }),
});
export type SessionView = Static<typeof SessionView>;

export const ServiceState = Type.Union(
  [Type.Literal('running'), Type.Literal('stopped'), Type.Literal('unknown')],
  { description: 'running, stopped or unknown' },
);
export type ServiceState = Static<typeof ServiceState>;

/** A published service as the overview shows it. */
export const ServiceView = Type.Object({
  name: Name,
  kind: Type.Union([Type.Literal('command'), Type.Literal('process'), Type.Literal('container')]),
  state: ServiceState,
  actions: Type.Array(Action, { description: 'what the service publishes' }),
  board: Type.Array(Action, { description: 'what the board key may ask for' }),
  busy: Type.Boolean({ description: 'an action is running now' }),
  container: Type.Optional(
    Line(255, 'container services: the container (its name or id) they start and stop'),
  ),
  timeout_s: Type.Optional(
    Type.Number({
      exclusiveMinimum: 0,
      description: 'how long an action may take; the board waits that long for the answer',
    }),
  ),
  last_exit: Type.Optional(
    Type.Union(
      [
        Type.Object({
          code: Type.Union([Type.Integer(), Type.Null()]),
          signal: Type.Union([Line(32), Type.Null()]),
          at: Line(40, 'ISO 8601 time it ended'),
        }),
        Type.Null(),
      ],
      { description: 'process services: how the last run ended; null while none has' },
    ),
  ),
});
export type ServiceView = Static<typeof ServiceView>;

const Bytes = Type.Integer({ minimum: 0 });

export const Memory = Type.Object({ total: Bytes, free: Bytes, used: Bytes });
export const Disk = Type.Object({ path: Line(4096), total: Bytes, free: Bytes, used: Bytes });

/** The most GPUs an overview lists, and the longest GPU name and error text. */
export const GPUS_MAX = 64;
export const GPU_NAME_MAX = 200;
export const GPU_ERROR_MAX = 200;

const OrNull = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** One GPU as nvidia-smi or rocm-smi read it; a field the tool did not know is null. */
export const GpuView = Type.Object({
  index: Type.Integer({ minimum: 0, description: "the tool's own GPU index" }),
  name: Type.String({ maxLength: GPU_NAME_MAX, pattern: ONE_LINE_PATTERN }),
  util: OrNull(Type.Number({ minimum: 0, maximum: 1, description: 'share busy, 0–1' })),
  mem_used: OrNull(Type.Integer({ minimum: 0, description: 'bytes' })),
  mem_total: OrNull(Type.Integer({ minimum: 0, description: 'bytes' })),
  temp_c: OrNull(Type.Number({ description: 'degrees Celsius' })),
  power_w: OrNull(Type.Number({ minimum: 0, description: 'watts drawn' })),
});
export type GpuView = Static<typeof GpuView>;

/** GET /api/overview on the agent: the machine as it sees itself. */
export const Overview = Type.Object({
  name: Name,
  hostname: Line(255),
  platform: Line(64),
  arch: Line(64),
  uptime_s: Type.Number({ minimum: 0 }),
  load: Type.Array(Type.Number(), { description: '1, 5 and 15 minute load averages' }),
  cpus: Type.Integer({ minimum: 0 }),
  cpu_use: Type.Number({ minimum: 0, maximum: 1, description: 'share of all CPUs busy, 0–1' }),
  memory: Memory,
  disks: Type.Array(Disk),
  services: Type.Array(ServiceView),
  sessions: Type.Array(SessionView),
  version: Line(64),
  time: Line(40, 'ISO 8601 time of the overview'),
  gpus: Type.Optional(
    Type.Array(GpuView, {
      maxItems: GPUS_MAX,
      description:
        'present when nvidia-smi (or rocm-smi) is on the machine and its last read succeeded; ' +
        'read in the background once per interval, never while the overview is asked for',
    }),
  ),
  gpus_error: Type.Optional(
    Type.String({
      maxLength: GPU_ERROR_MAX,
      pattern: ONE_LINE_PATTERN,
      description: 'why the last GPU read failed (then `gpus` is absent)',
    }),
  ),
  labels: Type.Optional(
    Type.Record(Type.String(), Type.String(), {
      description:
        "the agent's labels (`labels:` in its config), key: value; absent when it has none. " +
        `Keys: ${LABEL_KEY_PATTERN}, not name; values: ${LABEL_VALUE_PATTERN}; at most ${LABELS_MAX}. ` +
        'A report with one that breaks this is refused (422); a poll leaves it out',
    }),
  ),
  ...MachineNowFields,
  ...AgentSelfFields,
  ...CheckOverviewFields,
});
export type Overview = Static<typeof Overview>;
