import type { FastifyInstance } from 'fastify';
import { Type } from '../../shared/typebox.js';
import type { ActionName } from '../../shared/wire/common.js';
import { Report, ReportAnswer, ReportRefusal } from '../../shared/wire/report.js';
import type { Board } from '../domain/board.js';
import { Detail, DoParams, QueuedAnswer } from '../schemas.js';
import { reportBodyIssues } from './report-text.js';
import { sendAnswer } from './send-answer.js';

/** The largest report the board keeps (an overview is about 2 KB). */
export const REPORT_LIMIT_BYTES = 64 * 1024;

/** POST /api/report's body schema (report-fast-path.ts checks with it too). */
export const REPORT_SCHEMA = Report;

/** POST /api/do/{name}/{what}/{action} and POST /api/report. */
export async function actionRoutes(app: FastifyInstance, options: { board: Board }): Promise<void> {
  const { board } = options;

  app.post(
    '/api/do/:name/:what/:action',
    {
      config: { access: 'operator', machine: 'name' },
      schema: {
        operationId: 'do_action',
        summary: 'Relay start or stop of a published service to a machine',
        description:
          "Configured machine: relayed with the board's key; the machine's status and body come back unchanged. " +
          'Announced machine the board cannot reach: queued and handed over at its next report.',
        params: DoParams,
        response: {
          200: Type.Union([QueuedAnswer, Type.Object({}, { additionalProperties: true })]),
          403: Detail,
          404: Detail,
          409: Detail,
          502: Detail,
          503: Detail,
          504: Detail,
          default: Type.Unknown({
            description: "The machine's own answer with any other status, passed through unchanged",
          }),
        },
      },
    },
    async (request, reply) => {
      const { name, what, action } = request.params as {
        name: string;
        what: string;
        action: ActionName;
      };
      const answer = await board.doAction(request.who, name, what, action);
      return sendAnswer(reply, answer);
    },
  );

  app.post(
    '/api/report',
    {
      bodyLimit: REPORT_LIMIT_BYTES,
      config: { access: 'report' },
      schema: {
        operationId: 'report',
        summary: 'An announcing machine reports its overview',
        description:
          'Opened by the registration token (or the board token). The answer hands over the actions queued for the machine. ' +
          `Bodies over ${REPORT_LIMIT_BYTES / 1024} KiB are refused (413).`,
        body: REPORT_SCHEMA,
        response: { 200: ReportAnswer, 403: ReportRefusal, 409: Detail, 413: Detail },
      },
    },
    async (request, reply) => {
      const issues = reportBodyIssues(request.body as Record<string, unknown>);
      if (issues.length > 0) return sendAnswer(reply, { status: 422, body: { detail: issues } });
      const answer = await board.report(request.who, request.body as Report);
      return sendAnswer(reply, answer);
    },
  );
}
