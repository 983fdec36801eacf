import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '../../shared/typebox.js';
import { TOKEN_MIN_LENGTH } from '../../shared/wire/common.js';
import { LINES_PATTERN } from '../../shared/wire/free-text.js';
import { PUSH_TOKEN_MAX_LENGTH } from '../checks/check-config.js';
import type { PushMonitor } from '../checks/push-monitor.js';
import { Detail } from '../schemas.js';

const BeatQuery = Type.Object({
  status: Type.Optional(
    Type.Union([Type.Literal('up'), Type.Literal('down')], {
      default: 'up',
      description: 'down: a failed result, with msg as its detail',
    }),
  ),
  msg: Type.Optional(
    // Lines: a job's output may hold several; the detail is made one line.
    Type.String({
      maxLength: 2000,
      pattern: LINES_PATTERN,
      description: "the result's detail (one line, cut)",
    }),
  ),
  ms: Type.Optional(
    Type.Number({ minimum: 0, maximum: 86_400_000, description: 'how long the job took' }),
  ),
  // Uptime Kuma's name for it: its push URLs end in `&ping=` (empty unless the job fills it in).
  ping: Type.Optional(
    Type.String({
      pattern: '^([0-9]{1,8}(\\.[0-9]{1,6})?)?$',
      description: "ms, as Uptime Kuma's push URLs call it; empty is none",
    }),
  ),
});

const UNKNOWN = 'No push check with this token';

/** GET|POST /api/push/{token}: a push check's heartbeat (Uptime Kuma's push URL shape). */
export async function pushBeatRoutes(
  app: FastifyInstance,
  options: { monitor: PushMonitor },
): Promise<void> {
  const { monitor } = options;
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const { token } = request.params as { token: string };
    const q = request.query as {
      status: 'up' | 'down';
      msg?: string;
      ms?: number;
      ping?: number | '';
    };
    const ms = q.ms ?? (q.ping === undefined || q.ping === '' ? null : Number(q.ping));
    const outcome = monitor.beat(token, { status: q.status, msg: q.msg ?? '', ms });
    if (outcome === 'unknown') return reply.code(404).send({ detail: UNKNOWN });
    if (outcome === 'limited')
      return reply.code(429).send({ detail: 'Too many beats for this check: at most 10 a second' });
    return { ok: true };
  };
  const described = (method: 'GET' | 'POST') => ({
    // The token is the credential: it opens its one check, nothing else.
    config: { access: 'open' as const },
    schema: {
      operationId: method === 'GET' ? 'push_beat' : 'push_beat_post',
      summary: "A push check's heartbeat: the job that calls it is alive (or says it failed)",
      description:
        'Open: the token (at least 16 characters, from the check in board.yaml) is the credential and opens ' +
        'only its check. Never logged. 404 for a token no push check has; 429 past 10 beats a second.',
      params: Type.Object({
        token: Type.String({ minLength: TOKEN_MIN_LENGTH, maxLength: PUSH_TOKEN_MAX_LENGTH }),
      }),
      querystring: BeatQuery,
      response: {
        200: Type.Object({ ok: Type.Literal(true) }),
        404: Detail,
        429: Detail,
      },
    },
  });
  app.get('/api/push/:token', described('GET'), handler);
  app.post('/api/push/:token', described('POST'), handler);
}
