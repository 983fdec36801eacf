import { type Static, type TSchema, Type } from '../typebox.js';
import { ONE_LINE_PATTERN } from './free-text.js';
import {
  CONTAINERS_MAX,
  INTERFACES_MAX,
  PROCESSES_MAX,
  SMART_MAX,
  SOURCE_ERROR_TEXT_MAX,
  TEMPS_MAX,
} from './machine-now-limits.js';

export {
  CONTAINERS_MAX,
  INTERFACES_MAX,
  PROCESSES_MAX,
  SMART_MAX,
  SOURCE_ERROR_TEXT_MAX,
  TEMPS_MAX,
} from './machine-now-limits.js';

/**
 * What runs on a machine now, beside its CPU, memory and disks: containers, the busiest
 * processes, the network, temperatures and disk health (DESIGN.md 11). Each list is read by the
 * agent in the background once per interval; a source that failed sends `<field>_error`
 * instead of its field, and a source the machine does not have sends neither.
 */

const Line = (maxLength: number, description?: string) =>
  Type.String({
    maxLength,
    pattern: ONE_LINE_PATTERN,
    description: `${description === undefined ? '' : `${description}; `}one line, no control or bidi-override characters`,
  });
const OrNull = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const Bytes = (description: string) => Type.Integer({ minimum: 0, description });
const Share = (description: string) =>
  Type.Number({ minimum: 0, maximum: 1, description: `${description}, 0–1 of all CPUs` });
const Rate = (description: string) =>
  Type.Number({ minimum: 0, description: `${description}, bytes a second` });

export const ContainerState = Type.Union(
  [
    Type.Literal('running'),
    Type.Literal('exited'),
    Type.Literal('paused'),
    Type.Literal('restarting'),
    Type.Literal('created'),
    Type.Literal('dead'),
  ],
  { description: 'running, exited, paused, restarting, created or dead' },
);
export type ContainerState = Static<typeof ContainerState>;
export const ContainerHealth = Type.Union(
  [Type.Literal('healthy'), Type.Literal('unhealthy'), Type.Literal('starting'), Type.Null()],
  { description: 'its health check: healthy, unhealthy, starting, or null without one' },
);
export type ContainerHealth = Static<typeof ContainerHealth>;

/** One container as the engine (Docker or Podman) tells it. */
export const ContainerView = Type.Object({
  name: Line(255, 'the name, without the leading slash'),
  id: Type.String({ pattern: '^[0-9a-f]{12,64}$', description: 'the id, 12 or more hex digits' }),
  image: Line(1024),
  state: ContainerState,
  health: ContainerHealth,
  started_at: OrNull(Line(40, 'ISO 8601 time it last started')),
  cpu: OrNull(Share('CPU used; null until two samples')),
  mem_used: OrNull(Bytes('memory used')),
  mem_limit: OrNull(Bytes('its memory limit')),
  restarts: Type.Integer({ minimum: 0, description: 'times the engine restarted it' }),
});
export type ContainerView = Static<typeof ContainerView>;

/** One of the busiest processes. Never its arguments: command lines carry passwords. */
export const ProcessView = Type.Object({
  pid: Type.Integer({ minimum: 1 }),
  name: Line(64, "the executable's name (comm), never its arguments"),
  user: Line(64, 'the user it runs as (its uid when the name is unknown)'),
  cpu: Share('CPU used over the last interval'),
  mem: Bytes('resident memory'),
});

export const InterfaceView = Type.Object({
  name: Line(64),
  rx_bps: OrNull(Rate('received; null until two samples')),
  tx_bps: OrNull(Rate('sent; null until two samples')),
  rx_bytes: Bytes('received since the interface came up'),
  tx_bytes: Bytes('sent since the interface came up'),
});

/** The network: the machine's rates (every interface but loopback) and each interface's. */
export const NetView = Type.Object({
  rx_bps: OrNull(Rate('received on all interfaces but loopback; null until two samples')),
  tx_bps: OrNull(Rate('sent on all interfaces but loopback; null until two samples')),
  interfaces: Type.Array(InterfaceView, { maxItems: INTERFACES_MAX }),
});

export const TempView = Type.Object({
  label: Line(128, 'the sensor: chip and label, e.g. "coretemp Package id 0"'),
  c: Type.Number({ description: 'degrees Celsius' }),
});

/** One disk's health as smartctl reads it. */
export const SmartView = Type.Object({
  device: Line(255, 'e.g. /dev/nvme0'),
  model: OrNull(Line(255)),
  passed: OrNull(Type.Boolean({ description: "smartctl's overall health self-assessment" })),
  temp_c: OrNull(Type.Number({ description: 'degrees Celsius' })),
  power_on_hours: OrNull(Type.Integer({ minimum: 0 })),
});

const ErrorText = (source: string) =>
  Type.Optional(
    Type.String({
      maxLength: SOURCE_ERROR_TEXT_MAX,
      pattern: ONE_LINE_PATTERN,
      description: `why the last read of ${source} failed (then the field is absent)`,
    }),
  );

const READ =
  'read in the background once per interval, never while the overview is asked for; absent ' +
  'when the machine has no such source';

/** The overview's (and a report's) fields of DESIGN.md 11, all optional. */
export const MachineNowFields = {
  containers: Type.Optional(
    Type.Array(ContainerView, {
      maxItems: CONTAINERS_MAX,
      description: `the containers of the Docker or Podman engine on the agent's socket; ${READ}`,
    }),
  ),
  containers_error: ErrorText('the container engine'),
  containers_omitted: Type.Optional(
    Type.Integer({
      minimum: 0,
      description: 'containers left out of this report to keep it under its size limit',
    }),
  ),
  processes: Type.Optional(
    Type.Array(ProcessView, {
      maxItems: PROCESSES_MAX,
      description: `the 10 busiest processes by CPU and the 10 by memory; ${READ}`,
    }),
  ),
  processes_error: ErrorText('the processes'),
  net: Type.Optional(NetView),
  net_error: ErrorText('the network counters'),
  temps: Type.Optional(
    Type.Array(TempView, { maxItems: TEMPS_MAX, description: `hwmon sensors; ${READ}` }),
  ),
  temps_error: ErrorText('the temperature sensors'),
  smart: Type.Optional(
    Type.Array(SmartView, {
      maxItems: SMART_MAX,
      description: `disk health from smartctl, when it is on the machine; ${READ}`,
    }),
  ),
  smart_error: ErrorText('smartctl'),
};
