import {
  labelKeyProblem,
  labelValueProblem,
  NO_LABELS,
  toLabels,
} from '../../../../shared/labels.js';
import { safeText } from '../../../../shared/wire/free-text.js';
import { gpus, gpusError } from './parse-gpus.js';
import { containerAlerts, machineNow } from './parse-now.js';
import type {
  ActionName,
  AgentInfo,
  Board,
  Catalogue,
  Disk,
  Group,
  InboxPage,
  InboxSession,
  JournalEntry,
  LanguageInfo,
  LiveMessage,
  Machine,
  NotifyChannel,
  NotifyInfo,
  NotifyRule,
  Overview,
  Service,
  ServiceState,
  Session,
  Usage,
} from './types.js';

/** Thrown when the board sends something the UI cannot read at all. */
export class ParseError extends Error {
  override name = 'ParseError';
}

type Rec = Record<string, unknown>;

function isRecord(value: unknown): value is Rec {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function record(value: unknown, what: string): Rec {
  if (!isRecord(value)) throw new ParseError(`${what}: not an object`);
  return value;
}

function str(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

function num(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function actions(value: unknown): ActionName[] {
  const out: ActionName[] = [];
  for (const a of list(value)) if ((a === 'start' || a === 'stop') && !out.includes(a)) out.push(a);
  return out;
}

function usage(value: unknown): Usage | null {
  if (!isRecord(value)) return null;
  const total = num(value.total);
  if (total === null || total <= 0) return null;
  const free = num(value.free);
  const used = num(value.used) ?? (free === null ? null : total - free);
  return used === null ? null : { total, used: Math.max(0, Math.min(total, used)) };
}

function service(value: unknown): Service | null {
  if (!isRecord(value)) return null;
  const name = str(value.name);
  if (name === null) return null;
  const state: ServiceState =
    value.state === 'running' || value.state === 'stopped' ? value.state : 'unknown';
  return {
    name,
    kind: str(value.kind) ?? 'command',
    container: str(value.container),
    state,
    actions: actions(value.actions),
    board: actions(value.board),
    busy: value.busy === true,
  };
}

function session(value: unknown): Session | null {
  if (!isRecord(value)) return null;
  const id = str(value.session);
  const why = str(value.why);
  if (id === null || why === null) return null;
  // Polled overviews are shown as the agent sent them: the same cleaning as the board's.
  return {
    session: safeText(id),
    why,
    text: safeText(str(value.text) ?? '', true),
    at: str(value.at) ?? '',
  };
}

function compact<T>(values: (T | null)[]): T[] {
  return values.filter((v): v is T => v !== null);
}

function overview(value: unknown): Overview | null {
  if (!isRecord(value)) return null;
  const disks = compact(
    list(value.disks).map((d): Disk | null => {
      const u = usage(d);
      return u === null || !isRecord(d) ? null : { ...u, path: str(d.path) ?? '' };
    }),
  );
  const cpuUse = num(value.cpu_use);
  return {
    hostname: str(value.hostname),
    platform: str(value.platform),
    arch: str(value.arch),
    cpus: num(value.cpus),
    cpuUse: cpuUse === null ? null : Math.max(0, Math.min(1, cpuUse)),
    load: compact(list(value.load).map(num)),
    memory: usage(value.memory),
    disks,
    services: compact(list(value.services).map(service)),
    sessions: compact(list(value.sessions).map(session)),
    version: str(value.version),
    gpus: gpus(value.gpus),
    gpusError: gpusError(value.gpus_error),
    now: machineNow(value),
  };
}

/** Only http(s) locations become links: a `javascript:` URL from a report must never be one. */
function location(value: unknown): string | null {
  const text = str(value);
  if (text === null) return null;
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

function time(value: unknown): number | null {
  const text = str(value);
  if (text === null) return null;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? null : ms;
}

/** Whether a bell asks for a person. */
export function isAlarm(why: string): boolean {
  return why === 'attention' || why === 'error';
}

/**
 * The sessions waiting for a person, newest first: an alarm bell that nobody acknowledged (the
 * record's `acknowledged`: a session's acknowledged bell `at`; a newer bell is not covered).
 */
function waiting(sessions: Session[], acknowledged: unknown): Session[] {
  const acked = new Map<string, string>();
  for (const a of list(acknowledged)) {
    if (!isRecord(a)) continue;
    const id = str(a.session);
    const at = str(a.at);
    if (id !== null && at !== null) acked.set(safeText(id), at);
  }
  return sessions
    .filter((s) => {
      if (!isAlarm(s.why)) return false;
      const at = acked.get(s.session);
      return at === undefined || s.at > at;
    })
    .sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0));
}

/** One machine of the board view. */
export function parseMachine(value: unknown): Machine {
  const m = record(value, 'machine');
  const name = str(m.name);
  if (name === null || name === '') throw new ParseError('machine: no name');
  const ov = overview(m.overview);
  const attention = waiting(
    [...(ov?.sessions ?? []), ...compact(list(m.held_sessions).map(session))],
    m.acknowledged,
  );
  const loc = location(m.location);
  const labels = parseLabels(m.labels);
  const haystack = [
    name,
    loc ?? '',
    ov?.hostname ?? '',
    ov?.platform ?? '',
    ...(ov?.services.map((s) => s.name) ?? []),
  ]
    .join('\n')
    .toLowerCase();
  return {
    name,
    origin: m.origin === 'announced' ? 'announced' : 'configured',
    state: m.state === 'up' ? 'up' : 'down',
    location: loc,
    lastSeen: time(m.last_seen),
    error: str(m.error),
    late: m.late === true,
    queued: Math.max(0, Math.trunc(num(m.queued) ?? 0)),
    verified: typeof m.verified === 'boolean' ? m.verified : null,
    silencedUntil: time(m.silenced_until),
    agent: agentInfo(m.agent),
    overview: ov,
    containerAlerts: containerAlerts(m.container_alerts),
    labels,
    boardLabels: new Set(
      list(m.board_labels).filter((k): k is string => typeof k === 'string' && k in labels),
    ),
    attention,
    haystack,
  };
}

/** A record's `labels`: only pairs that keep the label rule (an older board sends none). */
function parseLabels(value: unknown): Machine['labels'] {
  if (!isRecord(value)) return NO_LABELS;
  const out: Record<string, string> = {};
  for (const [key, v] of Object.entries(value)) {
    if (labelKeyProblem(key) === null && labelValueProblem(key, v) === null) out[key] = v as string;
  }
  return toLabels(out);
}

/** A record's `agent` (absent from an older board: nothing to update). */
function agentInfo(value: unknown): AgentInfo {
  const a = value !== null && typeof value === 'object' ? (value as Rec) : {};
  return {
    version: str(a.version),
    sha256: str(a.sha256),
    updateAvailable: a.update_available === true,
    updates: a.updates === 'on' ? 'on' : 'off',
    lastUpdate: lastUpdate(a.last_update),
  };
}

/** The agent's last update outcome (absent from an older board: none). */
function lastUpdate(value: unknown): AgentInfo['lastUpdate'] {
  if (value === null || typeof value !== 'object') return null;
  const o = value as Rec;
  const state = o.state;
  if (state !== 'updated' && state !== 'rolled_back' && state !== 'refused') return null;
  return { state, detail: str(o.detail) ?? '', at: str(o.at) ?? '' };
}

/** GET /api/board, or the `board` of a live message. Machines that cannot be read are skipped. */
export function parseBoard(value: unknown): Board {
  const b = record(value, 'board');
  if (!Array.isArray(b.machines)) throw new ParseError('board: no machines');
  const machines: Machine[] = [];
  for (const m of b.machines) {
    try {
      machines.push(parseMachine(m));
    } catch {
      // one unreadable machine must not hide the others
    }
  }
  return { sweptAt: str(b.swept_at), machines };
}

/** One journal entry; unknown outcomes and operations are kept as they are. */
export function parseJournalEntry(value: unknown): JournalEntry {
  const e = record(value, 'journal entry');
  const id = str(e.id) ?? (num(e.id) === null ? null : String(e.id));
  if (id === null) throw new ParseError('journal entry: no id');
  return {
    id,
    at: str(e.at) ?? '',
    who: str(e.who) ?? '',
    op: str(e.op) ?? '',
    target: str(e.target) ?? '',
    outcome: str(e.outcome) ?? '',
    status: num(e.status),
    detail: str(e.detail),
    actor: actorOf(e.actor),
  };
}

function actorOf(value: unknown): JournalEntry['actor'] {
  if (!isRecord(value)) return null;
  const kind = str(value.kind);
  return kind === null ? null : { kind, name: str(value.name) ?? '' };
}

/** GET /api/journal. */
export function parseJournal(value: unknown): JournalEntry[] {
  const j = record(value, 'journal');
  const out: JournalEntry[] = [];
  for (const e of list(j.entries)) {
    try {
      out.push(parseJournalEntry(e));
    } catch {
      // skip what cannot be read
    }
  }
  return out;
}

/** GET /api/sessions. Sessions that cannot be read are skipped. */
export function parseSessions(value: unknown): InboxPage {
  const v = record(value, 'sessions');
  const sessions: InboxSession[] = [];
  for (const item of list(v.sessions)) {
    if (!isRecord(item)) continue;
    const machine = str(item.machine);
    const session = str(item.session);
    if (machine === null || session === null) continue;
    sessions.push({
      machine,
      session: safeText(session),
      why: str(item.why) ?? '',
      text: safeText(str(item.text) ?? '', true),
      at: time(item.at),
      waitingS: Math.max(0, Math.trunc(num(item.waiting_s) ?? 0)),
      acknowledgedAt: time(item.acknowledged_at),
      machineDown: item.machine_state === 'down',
    });
  }
  const total = Math.max(sessions.length, Math.trunc(num(v.total) ?? sessions.length));
  return { sessions, total };
}

/** GET /api/languages. */
export function parseLanguages(value: unknown): LanguageInfo[] {
  return compact(
    list(value).map((l): LanguageInfo | null => {
      if (!isRecord(l)) return null;
      const code = str(l.code);
      if (code === null) return null;
      return { code, name: str(l.name) ?? code, source: str(l.source) ?? '' };
    }),
  );
}

/** GET /api/language/{code}: only string messages are kept. */
export function parseCatalogue(value: unknown): Catalogue {
  const c = record(value, 'catalogue');
  const code = str(c.code);
  if (code === null) throw new ParseError('catalogue: no code');
  const messages: Record<string, string> = {};
  if (isRecord(c.messages)) {
    for (const [k, v] of Object.entries(c.messages)) if (typeof v === 'string') messages[k] = v;
  }
  return { code, name: str(c.name) ?? code, messages };
}

/** One message of GET /api/live, or null for a type this UI does not know. */
export function parseLiveMessage(value: unknown): LiveMessage | null {
  const m = record(value, 'live message');
  switch (m.type) {
    case 'board':
      return { type: 'board', board: parseBoard(m.board) };
    case 'machine':
      return { type: 'machine', machine: parseMachine(m.machine) };
    case 'removed': {
      const name = str(m.name);
      return name === null ? null : { type: 'removed', name };
    }
    case 'journal':
      return { type: 'journal', entry: parseJournalEntry(m.entry) };
    default:
      return null;
  }
}

/** GET /api/notify. Channels and rules that cannot be read are skipped. */
export function parseNotify(value: unknown): NotifyInfo {
  const v = record(value, 'notify');
  const channels: NotifyChannel[] = [];
  for (const c of list(v.channels)) {
    if (!isRecord(c)) continue;
    const name = str(c.name);
    const kind = str(c.kind);
    if (name !== null && kind !== null) channels.push({ name, kind });
  }
  const strings = (x: unknown): string[] =>
    list(x).filter((s): s is string => typeof s === 'string');
  const rules: NotifyRule[] = [];
  for (const rule of list(v.rules)) {
    if (!isRecord(rule)) continue;
    rules.push({
      events: strings(rule.events),
      machines: strings(rule.machines),
      channels: strings(rule.channels),
      after: num(rule.after) ?? 0,
      failures: num(rule.failures) ?? 1,
      repeat: num(rule.repeat) ?? 0,
    });
  }
  return { channels, rules };
}

/** GET /api/groups: the groups' names and selectors (unreadable ones are skipped). */
export function parseGroups(value: unknown): Group[] {
  const out: Group[] = [];
  for (const g of list(record(value, 'groups').groups)) {
    if (!isRecord(g)) continue;
    const name = str(g.name);
    const selector = str(g.selector);
    if (name !== null && selector !== null) out.push({ name, selector });
  }
  return out;
}
