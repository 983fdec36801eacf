import { safeText } from '../../shared/wire/free-text.js';
import type {
  ContainerHealth,
  ContainerState,
  ContainerView,
} from '../../shared/wire/machine-now.js';

/**
 * What the agent reads out of the Docker Engine API's answers (Docker's, or Podman's
 * compatible one): every field is checked, since the engine is another program and its text
 * is data. Pure functions; the calls are made in io/container-engine.ts.
 */

/** One container as `GET /containers/json?all=true` lists it. */
export interface ListedContainer {
  /** The full id (lower-case hex). */
  id: string;
  /** Its first name, without the leading slash. */
  name: string;
  image: string;
  state: ContainerState;
  /** The list's status text says "(unhealthy)" (Docker does; Podman does not). */
  unhealthyHint: boolean;
  /** The status text carries a health marker at all (Docker's does; Podman's does not). */
  healthMarked: boolean;
  /** State and status text without their durations: when it changes, something happened. */
  statusKey: string;
  /** The most seconds the status text's duration ("Up 5 minutes", "… 3 hours ago") can mean; null when none or too coarse. */
  sinceMaxS: number | null;
}

/** What `GET /containers/{id}/json` adds. */
export interface Inspected {
  state: ContainerState | null;
  health: ContainerHealth;
  startedAt: string | null;
  /** When it last stopped (ms since the epoch): what an exited container's status text counts from. */
  finishedMs: number | null;
  restarts: number;
}

/** What one `GET /containers/{id}/stats?stream=false&one-shot=true` gives. */
export interface StatsSample {
  /** cpu_stats.cpu_usage.total_usage: nanoseconds of CPU used since the container started. */
  cpuTotalNs: number | null;
  /** When the engine took the sample (ms since the epoch), if it says. */
  readAt: number | null;
  memUsed: number | null;
  memLimit: number | null;
}

const ID = /^[0-9a-f]{12,64}$/;
/** The short id shown in the overview (as `docker ps` shows it). */
export const SHORT_ID_LENGTH = 12;

/**
 * The engine's state word as the overview's: Docker's six, and Podman's own words where its
 * compatible API lets them through (`configured`, `stopped`, `stopping`, …). Anything else is
 * `dead`: a state the agent cannot vouch for is not shown as a healthy one.
 */
export function containerState(raw: unknown): ContainerState {
  const word = typeof raw === 'string' ? raw.trim().toLowerCase() : '';
  switch (word) {
    case 'running':
    case 'exited':
    case 'paused':
    case 'restarting':
    case 'created':
    case 'dead':
      return word;
    case 'configured':
    case 'initialized':
      return 'created';
    case 'stopped':
    case 'removing':
      return 'exited';
    case 'stopping':
      return 'running';
    default:
      return 'dead';
  }
}

/** The health word, or null: no health check (Docker leaves `Health` out, Podman sends ""). */
export function containerHealth(raw: unknown): ContainerHealth {
  const word = typeof raw === 'string' ? raw.trim().toLowerCase() : '';
  return word === 'healthy' || word === 'unhealthy' || word === 'starting' ? word : null;
}

/**
 * An engine time as ISO 8601, or null: Go's zero time (`0001-01-01T00:00:00Z`, "never") and
 * anything that is not a time after 1970.
 */
export function engineTime(raw: unknown): string | null {
  const ms = engineMs(raw);
  return ms === null ? null : new Date(ms).toISOString();
}

function engineMs(raw: unknown): number | null {
  if (typeof raw !== 'string' || raw.startsWith('0001-')) return null;
  const ms = Date.parse(raw);
  return Number.isFinite(ms) && ms > 0 ? ms : null;
}

/** The containers of a list answer; an entry without a usable id is left out. */
export function parseList(json: unknown): ListedContainer[] {
  if (!Array.isArray(json)) throw new EngineAnswerError('the container list is not a JSON array');
  const out: ListedContainer[] = [];
  for (const item of json) {
    const c = record(item);
    if (c === null || typeof c.Id !== 'string') continue;
    const id = c.Id.toLowerCase();
    if (!ID.test(id)) continue;
    const names = Array.isArray(c.Names) ? c.Names.filter((n) => typeof n === 'string') : [];
    const first = (names[0] ?? '').replace(/^\//, '');
    const status = typeof c.Status === 'string' ? c.Status.slice(0, 256) : '';
    out.push({
      id,
      name: line(first === '' ? id.slice(0, SHORT_ID_LENGTH) : first, 255),
      image: line(typeof c.Image === 'string' ? c.Image : '', 1024),
      state: containerState(c.State),
      unhealthyHint: /\(unhealthy\)/i.test(status),
      healthMarked: /\((healthy|unhealthy|health: )/i.test(status),
      statusKey: `${typeof c.State === 'string' ? c.State : ''}|${status.replace(DURATION, '')}`,
      sinceMaxS: sinceMaxS(status),
    });
  }
  return out;
}

/** A duration as Docker's and Podman's status texts word it (go-units' HumanDuration). */
const DURATION =
  /(less than a second|about an? (minute|hour)|\d+ (second|minute|hour|day|week|month|year)s?)( ago)?/gi;
const UNIT_S: Record<string, number> = {
  second: 1,
  minute: 60,
  hour: 3600,
  day: 86400,
  week: 604800,
};

/**
 * The most seconds the first duration of a status text can stand for (HumanDuration rounds
 * down, hours to the nearest); null without one, or for months and years.
 */
export function sinceMaxS(status: string): number | null {
  const m =
    /(less than a second|about an? (minute|hour)|(\d+) (second|minute|hour|day|week)s?\b)/i.exec(
      status,
    );
  if (m === null) return null;
  const words = (m[1] ?? '').toLowerCase();
  if (words === 'less than a second') return 1;
  if (m[2] !== undefined) return m[2].toLowerCase() === 'minute' ? 120 : 5400;
  const unit = UNIT_S[(m[4] ?? '').toLowerCase()];
  if (unit === undefined || m[3] === undefined) return null;
  return (Number(m[3]) + (unit === 3600 ? 0.5 : 1)) * unit;
}

/** The fields of an inspect answer the overview shows; null when it is not an object. */
export function parseInspect(json: unknown): Inspected | null {
  const c = record(json);
  if (c === null) return null;
  const state = record(c.State);
  const restarts = c.RestartCount;
  return {
    state: typeof state?.Status === 'string' ? containerState(state.Status) : null,
    health: containerHealth(record(state?.Health)?.Status),
    startedAt: engineTime(state?.StartedAt),
    finishedMs: engineMs(state?.FinishedAt),
    restarts:
      typeof restarts === 'number' && Number.isSafeInteger(restarts) ? Math.max(0, restarts) : 0,
  };
}

/** The CPU counter and memory of a one-shot stats answer; null when it is not an object. */
export function parseStats(json: unknown): StatsSample | null {
  const s = record(json);
  if (s === null) return null;
  const total = record(record(s.cpu_stats)?.cpu_usage)?.total_usage;
  const memory = record(s.memory_stats);
  const limit = bytes(memory?.limit);
  return {
    cpuTotalNs: typeof total === 'number' && Number.isFinite(total) && total >= 0 ? total : null,
    readAt: engineMs(s.read),
    memUsed: memory === null ? null : memoryUsed(memory),
    memLimit: limit === null || limit === 0 ? null : limit,
  };
}

/**
 * Memory used as `docker stats` shows it: the usage without the page cache the kernel can drop
 * (cgroup v1 `total_inactive_file`, cgroup v2 `inactive_file`, older engines `cache`).
 */
export function memoryUsed(memory: Record<string, unknown>): number | null {
  const usage = bytes(memory.usage);
  if (usage === null) return null;
  const stats = record(memory.stats);
  for (const key of ['total_inactive_file', 'inactive_file', 'cache']) {
    const cache = bytes(stats?.[key]);
    if (cache !== null && cache < usage) return usage - cache;
  }
  return usage;
}

/**
 * Each container's CPU share from the agent's own two samples of its CPU counter: the
 * nanoseconds used between them over the time between them and all the machine's CPUs.
 * Engines also send a previous sample (`precpu_stats`), but a one-shot read leaves it empty
 * and Podman's differs from Docker's; two reads of ours mean the same thing on both.
 */
export class CpuSamples {
  private readonly last = new Map<string, { ns: number; at: number }>();

  /** The share (0–1) since this container's previous sample; null for its first. */
  share(id: string, ns: number | null, at: number, cpus: number): number | null {
    const before = this.last.get(id);
    if (ns === null) {
      this.last.delete(id);
      return null;
    }
    this.last.set(id, { ns, at });
    // A restarted container starts its counter again: no share from across the restart.
    if (before === undefined || ns < before.ns || at <= before.at || cpus < 1) return null;
    const share = (ns - before.ns) / ((at - before.at) * 1e6 * cpus);
    return Number.isFinite(share) ? Math.min(1, Math.max(0, share)) : null;
  }

  /** Forgets the containers not in `ids` (removed, or no longer running). */
  keepOnly(ids: ReadonlySet<string>): void {
    for (const id of this.last.keys()) if (!ids.has(id)) this.last.delete(id);
  }
}

/** Whether `wanted` (a published service's `container`) names this container: its name or id. */
export function names(c: { id: string; name: string }, wanted: string): boolean {
  if (c.name === wanted) return true;
  const id = wanted.toLowerCase();
  // The overview carries the short id; the config may name the full one.
  if (id.length < SHORT_ID_LENGTH || !ID.test(id) || !ID.test(c.id)) return false;
  return c.id.startsWith(id) || id.startsWith(c.id);
}

/**
 * How much a container is worth keeping when not all can be listed: published ones (0), then
 * those that stopped or are not well (1), then the running ones (2).
 */
export function keepRank(
  c: { id: string; name: string; state: ContainerState; unhealthy: boolean },
  published: readonly string[],
): number {
  if (published.some((p) => names(c, p))) return 0;
  return c.state !== 'running' || c.unhealthy ? 1 : 2;
}

/** The `max` containers worth keeping most (keepRank), in their original order. */
export function keepMost<T>(items: readonly T[], rank: (item: T) => number, max: number): T[] {
  if (items.length <= max) return [...items];
  const chosen = items
    .map((item, index) => ({ index, rank: rank(item) }))
    .sort((a, b) => a.rank - b.rank || a.index - b.index)
    .slice(0, max)
    .map((e) => e.index)
    .sort((a, b) => a - b);
  return chosen.map((i) => items[i] as T);
}

/** One container as the overview lists it. */
export function containerView(
  c: ListedContainer,
  inspected: Inspected | null,
  cpu: number | null,
  stats: StatsSample | null,
): ContainerView {
  return {
    name: c.name,
    id: c.id.slice(0, SHORT_ID_LENGTH),
    image: c.image,
    state: inspected?.state ?? c.state,
    health: inspected?.health ?? (c.unhealthyHint ? 'unhealthy' : null),
    started_at: inspected?.startedAt ?? null,
    cpu,
    mem_used: stats?.memUsed ?? null,
    mem_limit: stats?.memLimit ?? null,
    restarts: inspected?.restarts ?? 0,
  };
}

/** An engine's answer that is not what the API documents; its message is the reason shown. */
export class EngineAnswerError extends Error {}

function line(text: string, max: number): string {
  return safeText(text).slice(0, max);
}

function bytes(value: unknown): number | null {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : null;
}

function record(value: unknown): Record<string, unknown> | null {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}
