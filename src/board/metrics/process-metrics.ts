import { readdir } from 'node:fs/promises';
import { collectDefaultMetrics, Gauge, type Registry } from 'prom-client';

const PREFIX = 'panoptes_board_';
/**
 * prom-client defaults whose every read walks all of the process's handles or descriptors on
 * the event loop: at 10,000 machines (as many open sockets) they took ~40 ms a scrape, during
 * which no request was answered (measured). They are left out; open descriptors are counted
 * below without blocking.
 */
const BLOCKING = [
  'process_open_fds',
  'nodejs_active_handles',
  'nodejs_active_handles_total',
  'nodejs_active_resources',
  'nodejs_active_resources_total',
  'nodejs_active_requests',
  'nodejs_active_requests_total',
];

/** How old the count of open descriptors may be before a scrape starts a new count. */
const FDS_MAX_AGE_MS = 5000;

/**
 * The process metrics of the board: prom-client's defaults (CPU, memory, heap, event loop lag,
 * GC, start time, descriptor limit, version) but those that block, and `process_open_fds`
 * counted by an asynchronous read of /proc/self/fd: a scrape answers with the last count
 * (at most FDS_MAX_AGE_MS old) and starts the next one.
 */
export function registerProcessMetrics(registry: Registry): void {
  collectDefaultMetrics({ register: registry, prefix: PREFIX });
  for (const name of BLOCKING) registry.removeSingleMetric(`${PREFIX}${name}`);
  if (process.platform !== 'linux') return;
  let count: number | null = null;
  let countedAt = Number.NEGATIVE_INFINITY;
  let counting = false;
  const recount = (): void => {
    counting = true;
    readdir('/proc/self/fd')
      .then((entries) => {
        count = entries.length;
        countedAt = Date.now();
      })
      .catch(() => undefined)
      .finally(() => {
        counting = false;
      });
  };
  recount();
  new Gauge({
    name: `${PREFIX}process_open_fds`,
    help: 'Number of open file descriptors (counted at most 5 s before the scrape).',
    registers: [registry],
    collect() {
      if (!counting && Date.now() - countedAt > FDS_MAX_AGE_MS) recount();
      if (count !== null) this.set(count);
    },
  });
}
