import type { FastifyInstance } from 'fastify';
import { Type } from '../../shared/typebox.js';
import type { Scoped } from '../auth/roles.js';
import { METRICS_CONTENT_TYPE, type MetricsExporter } from '../metrics/metrics-exporter.js';
import { metricsInScope } from '../metrics/scoped-metrics.js';

/** GET /metrics: Prometheus' text format, board token as Bearer (as Prometheus sends it). */
export async function metricsRoutes(
  app: FastifyInstance,
  options: { exporter: MetricsExporter; machine: (name: string) => Scoped | undefined },
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
          'by outcome, notifications by channel and outcome, and process metrics. Prepared once per sweep.',
        response: { 200: Type.String({ description: 'text/plain; version=0.0.4' }) },
      },
    },
    async (request, reply) => {
      const text = await options.exporter.scrape();
      const { scope } = request.actor;
      if (scope.whole('viewer')) return reply.type(METRICS_CONTENT_TYPE).send(text);
      const sees = (name: string) => {
        const m = options.machine(name);
        return m !== undefined && scope.sees(m);
      };
      return reply.type(METRICS_CONTENT_TYPE).send(metricsInScope(text, sees));
    },
  );
}
