import { Document, isMap, isSeq, parse, type YAMLMap } from 'yaml';
import { durationMs } from '../../shared/checks/condition-values.js';
import { ConditionError, parseCondition } from '../../shared/checks/conditions.js';

/** What an import made: the `checks:` block, and each thing it could not map (one line each). */
export interface GatusImport {
  /** YAML to paste into board.yaml; '' when nothing was imported. */
  yaml: string;
  /** How many checks it holds. */
  imported: number;
  /** What was left out, and why: `endpoints[2] "ssh": ssh:// endpoints are not supported`. */
  unmapped: string[];
}

type Entry = Record<string, unknown>;

const UNSUPPORTED_SCHEMES: Readonly<Record<string, string>> = {
  'ssh:': 'ssh',
  'sctp:': 'sctp',
  'udp:': 'udp',
  'ws:': 'websocket',
  'wss:': 'websocket',
  'grpc:': 'grpc',
  'grpcs:': 'grpc',
  'starttls:': 'starttls',
};

/** Endpoint keys that become part of a check (anything else is listed as not mapped). */
const MAPPED = new Set([
  'name',
  'group',
  'url',
  'interval',
  'conditions',
  'method',
  'headers',
  'body',
  'dns',
  'client',
  'enabled',
]);
const CLIENT_MAPPED = new Set(['insecure', 'ignore-redirect', 'timeout']);

function isEntry(value: unknown): value is Entry {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Letters without their accents (Ü → U), so a name keeps its readable part. */
function plain(raw: string): string {
  return raw.normalize('NFKD').replace(/\p{M}+/gu, '');
}

/** A check name from a Gatus name ("Back End (prod)" → back-end-prod), unique in the import. */
function nameOf(raw: string, taken: Set<string>): string {
  let base = plain(raw)
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[^A-Za-z0-9]+/, '')
    .replace(/-+$/, '')
    .slice(0, 60);
  if (base === '') base = 'check';
  let name = base;
  for (let n = 2; taken.has(name.toLowerCase()); n++) name = `${base}-${n}`;
  taken.add(name.toLowerCase());
  return name;
}

function slug(raw: string): string {
  return (
    plain(raw)
      .toLowerCase()
      .replace(/[^a-z0-9._-]+/g, '-')
      .replace(/^[^a-z0-9]+/, '')
      .replace(/-+$/, '')
      .slice(0, 63) || 'group'
  );
}

/** A Gatus duration as board.yaml takes it: `30s`/`5m` as they are, else whole seconds. */
function duration(raw: unknown): string | number | null {
  if (typeof raw === 'number') return raw;
  if (typeof raw !== 'string') return null;
  if (/^[0-9]{1,6}(ms|s|m|h)$/.test(raw)) return raw;
  const ms = durationMs(raw);
  return ms === null || ms <= 0 ? null : Math.max(1, Math.round(ms / 1000));
}

/** Type and target (and dns options) from a Gatus url; a string is why it cannot be mapped. */
function typeAndTarget(e: Entry): Entry | string {
  const url = typeof e.url === 'string' ? e.url.trim() : '';
  if (url === '') return 'no url';
  if (isEntry(e.dns)) {
    const name = e.dns['query-name'];
    if (typeof name !== 'string' || name === '') return 'a dns endpoint without dns.query-name';
    const record = typeof e.dns['query-type'] === 'string' ? e.dns['query-type'] : 'A';
    const resolver = url.replace(/^[a-z]+:\/\//i, '');
    return { type: 'dns', target: name, record: record.toUpperCase(), resolver };
  }
  const scheme = /^([a-z][a-z0-9+.-]*:)\/\//i.exec(url)?.[1]?.toLowerCase();
  if (scheme === 'http:' || scheme === 'https:') return { type: 'http', target: url };
  const rest = url.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '').replace(/\/.*$/, '');
  if (scheme === 'tcp:') return { type: 'tcp', target: rest };
  if (scheme === 'tls:') return { type: 'tls', target: rest };
  if (scheme === 'icmp:') return { type: 'icmp', target: rest };
  const unsupported = scheme === undefined ? undefined : UNSUPPORTED_SCHEMES[scheme];
  if (unsupported !== undefined) return `${unsupported} endpoints are not supported`;
  return `url ${JSON.stringify(url)} is of no type Panoptes runs`;
}

/** One Gatus endpoint as a check (`null` with its reasons listed when it cannot be one). */
function endpointCheck(e: Entry, at: string, taken: Set<string>, unmapped: string[]): Entry | null {
  const label = `${at} ${JSON.stringify(typeof e.name === 'string' ? e.name : '')}`;
  if (e.enabled === false) {
    unmapped.push(`${label}: skipped (enabled: false)`);
    return null;
  }
  const kind = typeAndTarget(e);
  if (typeof kind === 'string') {
    unmapped.push(`${label}: ${kind}`);
    return null;
  }
  const raw = typeof e.name === 'string' && e.name !== '' ? e.name : String(kind.target);
  const check: Entry = { name: nameOf(raw, taken), ...kind };
  if (typeof e.group === 'string' && e.group !== '') check.labels = { group: slug(e.group) };
  const interval = duration(e.interval);
  if (interval !== null) check.interval = interval;
  else if (e.interval !== undefined) unmapped.push(`${label}: interval ${String(e.interval)}`);
  const conditions: string[] = [];
  for (const [j, text] of (Array.isArray(e.conditions) ? e.conditions : []).entries()) {
    try {
      parseCondition(String(text));
      conditions.push(String(text));
    } catch (error) {
      if (!(error instanceof ConditionError)) throw error;
      const where = `position ${error.position + 1}`;
      unmapped.push(
        `${label}: conditions[${j}] ${JSON.stringify(text)}: ${error.message} at ${where}`,
      );
    }
  }
  if (conditions.length > 0) check.conditions = conditions;
  if (kind.type === 'http') {
    if (typeof e.method === 'string' && e.method.toUpperCase() !== 'GET') check.method = e.method;
    if (isEntry(e.headers) && Object.keys(e.headers).length > 0)
      check.headers = Object.fromEntries(Object.entries(e.headers).map(([k, v]) => [k, String(v)]));
    if (typeof e.body === 'string' && e.body !== '') check.body = e.body;
  }
  if (isEntry(e.client)) {
    if (e.client.insecure === true && kind.type === 'http') check.verify_tls = false;
    else if (e.client.insecure === true) unmapped.push(`${label}: client.insecure`);
    if (e.client['ignore-redirect'] === true && kind.type === 'http')
      check.follow_redirects = false;
    const timeout = duration(e.client.timeout);
    if (timeout !== null) check.timeout = timeout;
    for (const key of Object.keys(e.client))
      if (!CLIENT_MAPPED.has(key)) unmapped.push(`${label}: client.${key}`);
  }
  for (const key of Object.keys(e)) if (!MAPPED.has(key)) unmapped.push(`${label}: ${key}`);
  check.runners = { board: true };
  return check;
}

/**
 * Turns a Gatus config.yaml into a `checks:` block for board.yaml: endpoints become checks
 * (run by the board until a runners.selector is set); what has no counterpart is listed.
 */
export function importGatus(text: string): GatusImport {
  const config: unknown = parse(text);
  if (!isEntry(config)) return { yaml: '', imported: 0, unmapped: ['the file is not a YAML map'] };
  const unmapped: string[] = [];
  for (const key of Object.keys(config)) {
    if (key === 'endpoints') continue;
    if (key === 'external-endpoints')
      unmapped.push('external-endpoints: not imported (a `type: push` check is the counterpart)');
    else if (key === 'alerting') unmapped.push('alerting: not imported (notify rules do this)');
    else unmapped.push(`${key}: not imported`);
  }
  const endpoints = Array.isArray(config.endpoints) ? config.endpoints : [];
  const taken = new Set<string>();
  const checks: Entry[] = [];
  for (const [i, e] of endpoints.entries()) {
    if (!isEntry(e)) {
      unmapped.push(`endpoints[${i}]: not a map`);
      continue;
    }
    const check = endpointCheck(e, `endpoints[${i}]`, taken, unmapped);
    if (check !== null) checks.push(check);
  }
  if (checks.length === 0) return { yaml: '', imported: 0, unmapped };
  return { yaml: render(checks), imported: checks.length, unmapped };
}

function render(checks: Entry[]): string {
  const doc = new Document({ checks });
  doc.commentBefore = [
    ' Imported from a Gatus config.yaml. Each check runs on the board (runners.board: true):',
    ' set runners.selector (agents by board label) to run it from your machines instead.',
  ].join('\n');
  const seq = doc.get('checks', true);
  if (isSeq(seq)) {
    for (const item of seq.items) {
      if (!isMap(item)) continue;
      const runners = (item as YAMLMap).items.find(
        (pair) => (pair.key as { value?: unknown } | null)?.value === 'runners',
      );
      if (runners !== undefined && runners.key !== null && typeof runners.key === 'object')
        (runners.key as { commentBefore?: string }).commentBefore =
          ' set a selector, e.g. selector: "site=fra", to run it from agents';
    }
  }
  return doc.toString({ lineWidth: 0 });
}
