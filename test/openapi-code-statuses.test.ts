import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAgent } from '../src/agent/app.js';
import { loadAgentConfig } from '../src/agent/config.js';
import { systemClock as agentClock } from '../src/agent/domain/clock.js';
import { childEnv, trackedSpawner } from '../src/agent/io/node-spawner.js';
import { nodeSystemProbe } from '../src/agent/io/system-probe.js';
import { buildBoard } from '../src/board/app.js';
import { boardSettings } from '../src/board/config/config.js';
import { createLogger } from '../src/shared/logger.js';
import { agentYaml } from './helpers/agent-fixtures.js';
import { type Place, placeText, statusesIn } from './helpers/code-statuses.js';
import { type Doc, describes, operationsOf } from './helpers/status-provocations.js';
import { type TempDir, tempDir } from './helpers/tmp.js';

const B = 'src/board';
const route = (file: string, path: string, method?: string): Place => ({
  file: `${B}/${file}`,
  route: path,
  ...(method === undefined ? {} : { method }),
});
const fn = (file: string, name: string): Place => ({ file: `${B}/${file}`, fn: name });

/** The token rule every operation behind a token goes through. */
const BOARD_TOKEN_RULE = [fn('auth/guard.ts', 'guard'), fn('auth/guard.ts', 'refuse')];

/**
 * The code that chooses each board operation's answer: the route, and the domain functions it
 * hands the request to. An operation added to the board without an entry here fails the test.
 */
const BOARD_CODE: Record<string, Place[]> = {
  'GET /agent/{file}': [route('enroll/enroll-routes.ts', '/agent/:file')],
  'GET /agent/SHA256SUMS': [route('enroll/enroll-routes.ts', '/agent/SHA256SUMS')],
  'GET /agent/SHA256SUMS.sig': [route('enroll/enroll-routes.ts', '/agent/SHA256SUMS.sig')],
  'GET /agent/update-key': [route('enroll/enroll-routes.ts', '/agent/update-key')],
  'POST /api/machines/{name}/update': [
    route('http/update-routes.ts', '/api/machines/:name/update'),
    fn('domain/agent-updates.ts', 'request'),
    fn('domain/agent-updates.ts', 'handTo'),
  ],
  'POST /api/machines/update': [
    route('http/update-routes.ts', '/api/machines/update'),
    fn('domain/agent-updates.ts', 'requestAll'),
  ],
  'POST /api/machines/{name}/enroll': [
    route('enroll/enroll-routes.ts', '/api/machines/:name/enroll'),
    fn('enroll/enroller.ts', 'enroll'),
    fn('enroll/enroller.ts', 'problem'),
  ],
  'GET /api/enrollments': [route('enroll/enroll-routes.ts', '/api/enrollments')],
  'POST /api/do/{name}/{what}/{action}': [
    route('http/action-routes.ts', '/api/do/:name/:what/:action'),
    fn('domain/board.ts', 'doAction'),
    fn('domain/board.ts', 'passThrough'),
  ],
  'POST /api/report': [
    route('http/action-routes.ts', '/api/report'),
    fn('http/report-fast-path.ts', 'answer'),
    fn('domain/board.ts', 'report'),
  ],
  'GET /api/board': [route('http/board-routes.ts', '/api/board')],
  'DELETE /api/machines/{name}': [
    route('http/board-routes.ts', '/api/machines/:name'),
    fn('domain/board.ts', 'forget'),
  ],
  'GET /api/health': [route('http/meta-routes.ts', '/api/health')],
  'GET /api/openapi.json': [route('http/meta-routes.ts', '/api/openapi.json')],
  'GET /api/languages': [route('http/meta-routes.ts', '/api/languages')],
  'GET /api/language/{code}': [route('http/meta-routes.ts', '/api/language/:code')],
  'GET /api/journal': [route('http/journal-routes.ts', '/api/journal')],
  'GET /api/cluster': [route('http/cluster-routes.ts', '/api/cluster')],
  'GET /metrics': [route('http/metrics-routes.ts', '/metrics')],
  'GET /api/notify': [route('http/notify-routes.ts', '/api/notify')],
  'POST /api/notify/test': [route('http/notify-routes.ts', '/api/notify/test')],
  'GET /api/machines/{name}/history': [
    route('http/history-routes.ts', '/api/machines/:name/history'),
    fn('http/history-routes.ts', 'off'),
    fn('http/history-routes.ts', 'missing'),
    fn('http/history-routes.ts', 'unprocessable'),
  ],
  'GET /api/machines/{name}/events': [
    route('http/history-routes.ts', '/api/machines/:name/events'),
    fn('http/history-routes.ts', 'off'),
    fn('http/history-routes.ts', 'missing'),
  ],
  'GET /api/uptime': [
    route('http/history-routes.ts', '/api/uptime'),
    fn('http/history-routes.ts', 'off'),
  ],
  'POST /api/machines/{name}/silence': [
    route('http/silence-routes.ts', '/api/machines/:name/silence', 'post'),
    fn('notify/silences.ts', 'set'),
    fn('notify/silences.ts', 'notFound'),
  ],
  'GET /api/sessions': [route('http/session-routes.ts', '/api/sessions')],
  'POST /api/sessions/{machine}/{session}/ack': [
    route('http/session-routes.ts', '/api/sessions/:machine/:session/ack'),
    fn('domain/inbox.ts', 'acknowledge'),
    fn('domain/inbox.ts', 'notFound'),
  ],
  'POST /api/sessions/{machine}/ack': [
    route('http/session-routes.ts', '/api/sessions/:machine/ack'),
    fn('domain/inbox.ts', 'acknowledge'),
    fn('domain/inbox.ts', 'notFound'),
  ],
  'GET /api/push/key': [
    route('http/push-routes.ts', '/api/push/key'),
    fn('notify/push.ts', 'publicKey'),
  ],
  'POST /api/push/subscriptions': [
    route('http/push-routes.ts', '/api/push/subscriptions'),
    fn('notify/push.ts', 'subscribe'),
    fn('notify/push.ts', 'keep'),
  ],
  'POST /api/push/subscriptions/{id}/renew': [
    route('http/push-routes.ts', '/api/push/subscriptions/:id/renew'),
    fn('notify/push.ts', 'renew'),
    fn('notify/push.ts', 'keep'),
  ],
  'DELETE /api/push/subscriptions/{id}': [
    route('http/push-routes.ts', '/api/push/subscriptions/:id'),
    fn('notify/push.ts', 'unsubscribe'),
  ],
  'GET /api/push/{token}': [route('http/push-beat-routes.ts', '/api/push/:token', 'get')],
  'POST /api/push/{token}': [route('http/push-beat-routes.ts', '/api/push/:token', 'post')],
  'PUT /api/machines/{name}/labels': [
    route('http/label-routes.ts', '/api/machines/:name/labels', 'put'),
    fn('domain/labels.ts', 'set'),
  ],
  'GET /api/groups': [route('http/label-routes.ts', '/api/groups')],
  'GET /api/checks': [route('http/check-routes.ts', '/api/checks')],
  'GET /api/checks/mine': [route('http/check-mine-routes.ts', '/api/checks/mine')],
  'GET /api/checks/{name}/history': [
    route('http/check-history-routes.ts', '/api/checks/:name/history'),
  ],
  'GET /api/me': [route('http/me-routes.ts', '/api/me')],
  'POST /api/tokens': [route('http/token-routes.ts', '/api/tokens', 'post')],
  'GET /api/tokens': [route('http/token-routes.ts', '/api/tokens', 'get')],
  'DELETE /api/tokens/{id}': [route('http/token-routes.ts', '/api/tokens/:id')],
  'GET /auth/methods': [route('http/me-routes.ts', '/auth/methods')],
  'POST /auth/logout': [route('http/me-routes.ts', '/auth/logout')],
  'GET /api/people': [route('http/people-routes.ts', '/api/people', 'get')],
  'POST /api/people': [
    route('http/people-routes.ts', '/api/people', 'post'),
    fn('auth/local-people.ts', 'add'),
  ],
  'PUT /api/people/{name}': [
    route('http/people-routes.ts', '/api/people/:name', 'put'),
    fn('auth/local-people.ts', 'setBindings'),
  ],
  'DELETE /api/people/{name}': [
    route('http/people-routes.ts', '/api/people/:name', 'delete'),
    fn('auth/local-people.ts', 'remove'),
  ],
  'POST /api/people/{name}/link': [
    route('http/people-routes.ts', '/api/people/:name/link'),
    fn('auth/local-people.ts', 'link'),
  ],
  'POST /auth/password': [
    route('http/local-sign-in-routes.ts', '/auth/password'),
    fn('auth/local-sign-in.ts', 'password'),
    fn('auth/local-sign-in.ts', 'refused'),
    fn('auth/local-sign-in.ts', 'tooMany'),
  ],
  'POST /auth/passkey/options': [
    route('http/local-sign-in-routes.ts', '/auth/passkey/options'),
    fn('auth/local-sign-in.ts', 'passkeyOptions'),
    fn('auth/local-sign-in.ts', 'tooMany'),
  ],
  'POST /auth/passkey': [
    route('http/local-sign-in-routes.ts', '/auth/passkey'),
    fn('auth/local-sign-in.ts', 'passkey'),
    fn('auth/local-sign-in.ts', 'refused'),
    fn('auth/local-sign-in.ts', 'tooMany'),
  ],
  'POST /auth/signup': [
    route('http/local-sign-in-routes.ts', '/auth/signup'),
    fn('auth/local-sign-in.ts', 'link'),
    fn('auth/local-sign-in.ts', 'tooMany'),
  ],
  'POST /auth/signup/password': [
    route('http/local-sign-in-routes.ts', '/auth/signup/password'),
    fn('auth/local-sign-in.ts', 'signupPassword'),
    fn('auth/local-sign-in.ts', 'link'),
    fn('auth/local-sign-in.ts', 'signUp'),
    fn('auth/local-sign-in.ts', 'tooMany'),
  ],
  'POST /auth/signup/passkey/options': [
    route('http/local-sign-in-routes.ts', '/auth/signup/passkey/options'),
    fn('auth/local-sign-in.ts', 'signupPasskeyOptions'),
    fn('auth/local-sign-in.ts', 'link'),
    fn('auth/local-sign-in.ts', 'tooMany'),
  ],
  'POST /auth/signup/passkey': [
    route('http/local-sign-in-routes.ts', '/auth/signup/passkey'),
    fn('auth/local-sign-in.ts', 'signupPasskey'),
    fn('auth/local-sign-in.ts', 'link'),
    fn('auth/local-sign-in.ts', 'signUp'),
    fn('auth/local-sign-in.ts', 'tooMany'),
  ],
  'GET /api/silences': [route('http/selector-silence-routes.ts', '/api/silences', 'get')],
  'POST /api/silences': [
    route('http/selector-silence-routes.ts', '/api/silences', 'post'),
    fn('notify/selector-silences.ts', 'start'),
  ],
  'DELETE /api/silences/{id}': [
    route('http/selector-silence-routes.ts', '/api/silences/:id', 'delete'),
    fn('notify/selector-silences.ts', 'end'),
  ],
  'DELETE /api/machines/{name}/silence': [
    route('http/silence-routes.ts', '/api/machines/:name/silence', 'delete'),
    fn('notify/silences.ts', 'end'),
    fn('notify/silences.ts', 'notFound'),
  ],
};

const A = 'src/agent';
const AGENT_TOKEN_RULE: Place[] = [{ file: `${A}/http/auth.ts`, fn: 'requireRole' }];

/** The same of each agent operation. */
const AGENT_CODE: Record<string, Place[]> = {
  'GET /api/health': [{ file: `${A}/http/health-routes.ts`, route: '/api/health' }],
  'GET /api/overview': [{ file: `${A}/http/overview-routes.ts`, route: '/api/overview' }],
  'POST /api/bell': [{ file: `${A}/http/bell-routes.ts`, route: '/api/bell' }],
  'POST /api/do/{what}/{action}': [
    { file: `${A}/http/do-routes.ts`, route: '/api/do/:what/:action' },
    { file: `${A}/domain/services.ts`, fn: 'act' },
    { file: `${A}/domain/services.ts`, fn: 'refuse' },
  ],
  'POST /api/update': [{ file: `${A}/http/update-routes.ts`, route: '/api/update' }],
  'PUT /api/checks': [{ file: `${A}/http/check-routes.ts`, route: '/api/checks' }],
  'GET /api/openapi.json': [{ file: `${A}/http/openapi-routes.ts`, route: '/api/openapi.json' }],
};

/** What each place names that the document does not describe for the operation. */
function undescribed(doc: Doc, code: Record<string, Place[]>, tokenRule: Place[]): string[] {
  const out: string[] = [];
  for (const op of operationsOf(doc)) {
    const places = code[op];
    if (places === undefined) {
      out.push(`route ${op} has no code listed`);
      continue;
    }
    const [method = '', path = ''] = op.split(' ');
    const secured = (doc.paths[path]?.[method.toLowerCase()]?.security ?? []).length > 0;
    for (const place of secured ? [...places, ...tokenRule] : places) {
      for (const status of statusesIn(placeText(place))) {
        if (!describes(doc, op, status)) {
          const where = 'route' in place ? `route ${place.route}` : place.fn;
          out.push(`${op}: ${status} (${place.file}, ${where}) is not in the description`);
        }
      }
    }
  }
  return out;
}

describe('every status the code of an operation names is in its OpenAPI description', () => {
  let dir: TempDir;
  let boardDoc: Doc;
  let agentDoc: Doc;

  beforeAll(async () => {
    dir = tempDir('panoptes-code-statuses-');
    const board = await buildBoard({
      settings: boardSettings(
        { board_token: 'code-statuses-board-token-0123', data_dir: dir.path },
        `${dir.path}/board.yaml`,
        null,
      ),
      logger: createLogger('board', 'silent'),
    });
    await board.app.ready();
    boardDoc = board.app.swagger() as unknown as Doc;
    await board.close();
    const settings = loadAgentConfig(dir.write('agent.yaml', agentYaml()), {}, {});
    const spawner = trackedSpawner(childEnv(process.env));
    const agent = await buildAgent({
      settings,
      logger: createLogger('agent', 'silent'),
      clock: agentClock,
      spawner: spawner.spawn,
      probe: nodeSystemProbe([dir.path]),
    });
    await agent.app.ready();
    agentDoc = agent.app.swagger() as unknown as Doc;
    await agent.app.close();
  });
  afterAll(() => dir?.cleanup());

  it('the board', () => {
    expect(Object.keys(BOARD_CODE).filter((op) => !operationsOf(boardDoc).includes(op))).toEqual(
      [],
    );
    expect(undescribed(boardDoc, BOARD_CODE, BOARD_TOKEN_RULE)).toEqual([]);
  });

  it('the agent', () => {
    expect(Object.keys(AGENT_CODE).filter((op) => !operationsOf(agentDoc).includes(op))).toEqual(
      [],
    );
    expect(undescribed(agentDoc, AGENT_CODE, AGENT_TOKEN_RULE)).toEqual([]);
  });

  it('finds the statuses a piece of code names', () => {
    expect(statusesIn(placeText(fn('domain/board.ts', 'doAction')))).toEqual([
      404, 409, 502, 503, 504,
    ]);
    expect(statusesIn(placeText(fn('notify/silences.ts', 'set')))).toEqual([503]);
    expect(statusesIn(placeText(fn('enroll/enroller.ts', 'enroll')))).toEqual([503]);
    expect(statusesIn(placeText(fn('auth/guard.ts', 'guard')))).toEqual([401, 403, 429]);
    expect(statusesIn(placeText(fn('notify/push.ts', 'subscribe')))).toEqual([409, 422]);
    expect(statusesIn(placeText(fn('notify/push.ts', 'renew')))).toEqual([404, 409, 422, 503]);
  });
});
