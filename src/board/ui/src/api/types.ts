import type { Labels } from '../../../../shared/labels.js';
import type { ActionName } from '../../../../shared/wire/common.js';

/**
 * The UI's model of what the board sends. Everything from the network is `unknown` until
 * `parse.ts` has checked it; an announced machine's overview may miss any field, so the model
 * says `null` (or an empty list) where the wire said nothing usable.
 */

export type { ActionName, Labels };
export type MachineState = 'up' | 'down';
export type Origin = 'configured' | 'announced';
export type ServiceState = 'running' | 'stopped' | 'unknown';

export interface Service {
  name: string;
  /** command, process or container. */
  kind: string;
  /** container services: the container (its name or id) they start and stop; else null. */
  container: string | null;
  state: ServiceState;
  /** What the machine publishes for this service. */
  actions: ActionName[];
  /** What the machine lets the board ask for: the only buttons the UI shows. */
  board: ActionName[];
  busy: boolean;
}

export interface Session {
  session: string;
  /** finished, attention or error (other values are shown as they are). */
  why: string;
  text: string;
  at: string;
}

export interface Usage {
  total: number;
  used: number;
}

export interface Disk extends Usage {
  path: string;
}

/** One GPU of a machine (nvidia-smi or rocm-smi on it); a figure it did not give is null. */
export interface Gpu {
  index: number;
  name: string;
  /** Share busy, 0–1. */
  util: number | null;
  memUsed: number | null;
  memTotal: number | null;
  tempC: number | null;
  powerW: number | null;
}

export interface Overview {
  hostname: string | null;
  platform: string | null;
  arch: string | null;
  cpus: number | null;
  /** Share of all CPUs busy, 0–1. */
  cpuUse: number | null;
  load: number[];
  memory: Usage | null;
  disks: Disk[];
  services: Service[];
  sessions: Session[];
  version: string | null;
  /** The machine's GPUs (parse-gpus.ts); empty without a GPU tool. */
  gpus: Gpu[];
  /** Why its GPU tool failed, if it did. */
  gpusError: string | null;
  /** Containers, processes, network, temperatures and disk health (parse-now.ts). */
  now: MachineNow;
}

/** One container as the machine's engine tells it. */
export interface Container {
  name: string;
  id: string;
  image: string;
  /** running, exited, paused, restarting, created or dead (other values are shown as they are). */
  state: string;
  /** healthy, unhealthy, starting, or null without a health check. */
  health: string | null;
  /** When it last started (ms since the epoch), or null. */
  startedAt: number | null;
  /** Share of all CPUs, 0–1; null until the engine has two samples. */
  cpu: number | null;
  memUsed: number | null;
  memLimit: number | null;
  restarts: number;
}

/** One of the busiest processes (never its arguments: the wire has none). */
export interface ProcessInfo {
  pid: number;
  name: string;
  user: string;
  /** Share of all CPUs, 0–1. */
  cpu: number;
  mem: number;
}

export interface NetInterface {
  name: string;
  /** Bytes a second; null until two samples. */
  rxBps: number | null;
  txBps: number | null;
  rxBytes: number | null;
  txBytes: number | null;
}

export interface Net {
  rxBps: number | null;
  txBps: number | null;
  interfaces: NetInterface[];
}

export interface Temp {
  label: string;
  c: number;
}

/** One disk's health as smartctl reads it. */
export interface DiskHealth {
  device: string;
  model: string | null;
  passed: boolean | null;
  tempC: number | null;
  powerOnHours: number | null;
}

/**
 * What runs on the machine now. A list is null when the machine has no such source (nothing is
 * shown), empty when it has one with nothing in it; `…Error` says why its last read failed.
 */
export interface MachineNow {
  containers: Container[] | null;
  containersError: string | null;
  /** Containers the machine left out of its report to keep it small. */
  containersOmitted: number;
  processes: ProcessInfo[] | null;
  processesError: string | null;
  net: Net | null;
  netError: string | null;
  temps: Temp[] | null;
  tempsError: string | null;
  smart: DiskHealth[] | null;
  smartError: string | null;
}

/** A container the board has seen stop or turn unhealthy (the machine record's container_alerts). */
export interface ContainerAlert {
  name: string;
  problem: 'stopped' | 'unhealthy';
}

/** The agent on a machine, for updates from the board. */
export interface AgentInfo {
  version: string | null;
  sha256: string | null;
  /** The board serves a newer file of the kind the machine runs. */
  updateAvailable: boolean;
  /** on: the agent takes updates from the board. */
  updates: 'on' | 'off';
  /** How its last update ended, as the agent says (its words), or null. */
  lastUpdate: { state: 'updated' | 'rolled_back' | 'refused'; detail: string; at: string } | null;
}

export interface Machine {
  name: string;
  origin: Origin;
  state: MachineState;
  /** An http(s) URL a browser may open, or null when the board sent none usable. */
  location: string | null;
  /** Milliseconds since the epoch, or null when never seen. */
  lastSeen: number | null;
  error: string | null;
  /** Announced and no report for twice its interval: still up, shown amber. */
  late: boolean;
  queued: number;
  /** announced: whether its latest report proved a key the board holds; null when configured. */
  verified: boolean | null;
  /** Notifications silenced until (ms since the epoch), or null. */
  silencedUntil: number | null;
  agent: AgentInfo;
  overview: Overview | null;
  /** Containers that stopped or turned unhealthy since they ran (empty: none). */
  containerAlerts: ContainerAlert[];
  /** Its labels, the board's and the agent's merged (key order); pairs breaking the rule dropped. */
  labels: Labels;
  /** The keys of `labels` the board set (board.yaml or the API); the others are the agent's. */
  boardLabels: ReadonlySet<string>;
  /** Sessions whose latest bell is attention or error, newest first (derived). */
  attention: Session[];
  /** Lower-cased text the filter matches against (derived). */
  haystack: string;
}

export interface Board {
  sweptAt: string | null;
  machines: Machine[];
}

export interface JournalEntry {
  id: string;
  at: string;
  who: string;
  op: string;
  target: string;
  outcome: string;
  status: number | null;
  detail: string | null;
  /** Who did it (DESIGN 15): kind person|token|board_token|machine|mcp|anonymous; null from an older board. */
  actor: { kind: string; name: string } | null;
}

export interface LanguageInfo {
  code: string;
  name: string;
  source: string;
}

export interface Catalogue {
  code: string;
  name: string;
  messages: Record<string, string>;
}

/** One session of the attention inbox (GET /api/sessions). */
export interface InboxSession {
  machine: string;
  session: string;
  why: string;
  text: string;
  /** When its latest bell rang (ms since the epoch), or null if the board sent no readable time. */
  at: number | null;
  /** Whole seconds it had waited when the board answered. */
  waitingS: number;
  /** When a person acknowledged its bell (ms since the epoch), or null. */
  acknowledgedAt: number | null;
  /** Its machine is down: this is what the machine listed when last heard from. */
  machineDown: boolean;
}

/** GET /api/sessions: the first sessions in the inbox's order, and how many there are. */
export interface InboxPage {
  sessions: InboxSession[];
  total: number;
}

/** One message of GET /api/live. */
export type LiveMessage =
  | { type: 'board'; board: Board }
  | { type: 'machine'; machine: Machine }
  | { type: 'removed'; name: string }
  | { type: 'journal'; entry: JournalEntry };

/** A notification channel as GET /api/notify shows it (never its URL). */
export interface NotifyChannel {
  name: string;
  kind: string;
}

/** A notification rule as GET /api/notify shows it. */
export interface NotifyRule {
  events: string[];
  machines: string[];
  channels: string[];
  after: number;
  failures: number;
  repeat: number;
}

export interface NotifyInfo {
  channels: NotifyChannel[];
  rules: NotifyRule[];
}

/** A group of GET /api/groups: a saved selector with a name (its counts are made on the page). */
export interface Group {
  name: string;
  selector: string;
}
