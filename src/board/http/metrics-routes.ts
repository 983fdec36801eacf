import type { FastifyInstance } from 'fastify';
import { Type } from '../../shared/typebox.js';
import type { Scoped } from '../auth/roles.js';
import type { CheckBook } from '../checks/check-book.js';
import { checkSight } from '../checks/check-rows.js';
import { checkFamilies } from '../metrics/check-families.js';
import { METRICS_CONTENT_TYPE, type MetricsExporter } from '../metrics/metrics-exporter.js';
import { metricsInScope } from '../metrics/scoped-metrics.js';

/** The exposition text and the checks' families after it, on a line of their own. */
function withChecks(text: Buffer, checks: string): Buffer {
  if (checks === '') return text;
  const newline = text.length > 0 && text[text.length - 1] !== 0x0a ? '\n' : '';
  return Buffer.concat([text, Buffer.from(newline + checks)]);
}

/** GET /metrics: Prometheus' text format, board token as Bearer (as Prometheus sends it). */
export async function metricsRoutes(
  app: FastifyInstance,
  options: {
    exporter: MetricsExporter;
    machine: (name: string) => Scoped | undefined;
    /** The checks (their families are made at each scrape); absent: none. */
    checks?: CheckBook;
  },
): Promise<void> {
  app.get(
    '/metrics',
    {
      config: { access: 'viewer' },
      schema: {
        operationId: 'metrics',
        summary: 'Prometheus metrics: every machine and the board itself',
        description:
          'The Prometheus text format (0.0.4). Per machine (labels name, origin): panoptes_machine_up, _late, ' +
          '_cpu_use, _memory_used_bytes, _load1, _disk_used_ratio, _last_seen_timestamp_seconds, ' +
          '_bells_waiting, _queued_actions; the board: sweep duration, sweeps, machines, reports, relays ' +
          'by outcome, notifications by channel and outcome, and process metrics. Prepared once per sweep. ' +
          'Per check: panoptes_check_up{check} (absent while unknown), panoptes_check_duration_seconds{check,runner}, ' +
          'panoptes_check_cert_expiry_seconds{check}; a scoped caller gets the checks and runners it sees.',
        response: { 200: Type.String({ description: 'text/plain; version=0.0.4' }) },
      },
    },
    async (request, reply) => {
      const text = await options.exporter.scrape();
      const { scope } = request.actor;
      const whole = scope.whole('viewer');
      const checks =
        options.checks === undefined
          ? ''
          : checkFamilies(
              options.checks,
              whole ? null : checkSight(scope, options.machine),
              Date.now(),
            );
      if (whole) return reply.type(METRICS_CONTENT_TYPE).send(withChecks(text, checks));
      const sees = (name: string) => {
        const m = options.machine(name);
        return m !== undefined && scope.sees(m);
      };
      return reply.type(METRICS_CONTENT_TYPE).send(withChecks(metricsInScope(text, sees), checks));
    },
  );
}
