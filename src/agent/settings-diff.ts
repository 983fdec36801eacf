import type { AgentSettings } from './config.js';

/** What an agent's reload changes, by field name (never a value: some are secrets). */
export interface AgentSettingsChange {
  applied: string[];
  restart: string[];
}

type Field = [name: string, read: (s: AgentSettings) => unknown];

/** Fields a running agent cannot change: its socket, its name and address, its files, its timers. */
const RESTART_FIELDS: readonly Field[] = [
  ['name', (s) => s.name],
  ['host', (s) => s.host],
  ['port', (s) => s.port],
  ['location', (s) => s.location],
  ['proxy', (s) => s.proxy],
  ['data_dir', (s) => s.dataDir],
  ['tls (on/off)', (s) => s.tls !== null],
  ['report (on/off)', (s) => s.report !== null],
  ['report.interval', (s) => s.report?.intervalMs ?? null],
  ['gpu_interval', (s) => s.gpuIntervalMs],
  ['sample_interval', (s) => s.sampleIntervalMs],
  ['hwmon', (s) => s.hwmonRoot],
  ['containers.socket', (s) => s.containerSocket],
];

const LIVE_FIELDS: readonly Field[] = [
  ['token', (s) => s.token],
  ['board_key', (s) => s.boardKey],
  ['bell_token', (s) => s.bellToken],
  ['services', (s) => JSON.stringify(s.services)],
  ['labels', (s) => JSON.stringify(s.labels)],
  ['tls', (s) => (s.tls === null ? null : `${s.tls.cert}\n${s.tls.key}`)],
  ['report.board', (s) => s.report?.board ?? null],
  ['report.token', (s) => s.report?.token ?? null],
  ['report.ca', (s) => s.report?.ca ?? null],
];

/** The fields that differ between the running settings and a reloaded file. */
export function diffAgentSettings(
  running: AgentSettings,
  next: AgentSettings,
): AgentSettingsChange {
  const differs = ([, read]: Field) => read(running) !== read(next);
  const restart = RESTART_FIELDS.filter(differs).map(([name]) => name);
  const skip = new Set<string>();
  if (restart.includes('tls (on/off)')) skip.add('tls');
  if (restart.includes('report (on/off)')) {
    for (const f of ['report.board', 'report.token', 'report.ca']) skip.add(f);
  }
  const applied = LIVE_FIELDS.filter(differs)
    .map(([name]) => name)
    .filter((name) => !skip.has(name));
  return { applied, restart };
}

/** `next` with the running value of every field that needs a restart. */
export function keepAgentRestartFields(running: AgentSettings, next: AgentSettings): AgentSettings {
  const tlsSwitched = (running.tls === null) !== (next.tls === null);
  let report = running.report;
  if (running.report !== null && next.report !== null) {
    report = { ...next.report, intervalMs: running.report.intervalMs };
  }
  return {
    ...next,
    name: running.name,
    host: running.host,
    port: running.port,
    location: running.location,
    proxy: running.proxy,
    dataDir: running.dataDir,
    containerSocket: running.containerSocket,
    tls: tlsSwitched ? running.tls : next.tls,
    report,
  };
}
