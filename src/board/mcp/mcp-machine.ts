import { agentRecord } from '../domain/agent-self.js';
import { type Machine, silencedUntilText } from '../domain/machine.js';

/** One machine as list_machines gives it: its state and a few numbers, never a key. */
export function machineItem(m: Machine): Record<string, unknown> {
  const numbers = m.metrics;
  return {
    name: m.name,
    origin: m.origin,
    state: m.state,
    late: m.late,
    ...(m.origin === 'announced' ? { verified: m.verified } : {}),
    location: m.location,
    last_seen: m.lastSeen === null ? null : new Date(m.lastSeen).toISOString(),
    error: m.error,
    queued: m.queued,
    silenced_until: silencedUntilText(m),
    agent: agentRecord(m),
    labels: m.labels,
    cpu: numbers?.cpu ?? null,
    mem: numbers?.mem ?? null,
    disk: numbers?.disk ?? null,
    load: numbers?.load ?? null,
    bells: numbers?.bells ?? 0,
    ...(m.containerAlerts.length === 0
      ? {}
      : { container_alerts: m.containerAlerts.map((a) => ({ name: a.name, problem: a.problem })) }),
  };
}
