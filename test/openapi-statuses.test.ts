import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BoardApp, buildBoard } from '../src/board/app.js';
import { boardSettings } from '../src/board/config/config.js';
import { registrationWho } from '../src/board/domain/who.js';
import { REPORT_LIMIT_BYTES } from '../src/board/http/action-routes.js';
import { subscriptionId } from '../src/board/notify/push.js';
import { ManualClock } from '../src/shared/clock.js';
import { BODY_LIMIT_BYTES } from '../src/shared/http/errors.js';
import { createLogger } from '../src/shared/logger.js';
import { FakeClient } from './helpers/board-kit.js';
import {
  agentFileMissing,
  machineOperations,
  REGISTRATION,
  selectorSilenceOperations,
  storeRefuses,
  WEB1,
} from './helpers/board-statuses.js';
import {
  type Doc,
  disagreements,
  type OperationEntry,
  type ProgramUnderTest,
  unlisted,
} from './helpers/status-provocations.js';
import { type TempDir, tempDir } from './helpers/tmp.js';

const TOKEN = 'statuses-board-token-0123456789';
const LAB3_KEY = 'statuses-lab3-key-0123456789';
const BEAT = 'statuses-beat-token-0123456789';
const AGENT_BYTES = 'export const agent = 1;\n';
const AGENT_ETAG = `"${createHash('sha256').update(AGENT_BYTES).digest('hex')}"`;

/** A browser's subscription (the push service's side need not exist: nothing is sent). */
const SUBSCRIPTION = {
  endpoint: 'https://push.example/send/statuses-endpoint-0123456789',
  expirationTime: null,
  keys: {
    p256dh:
      'BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM',
    auth: 'tBHItJI5svbpez7KI4CCXg',
  },
};

/** A subscription the renew replaces (its service worker renews it). */
const RENEWED = { ...SUBSCRIPTION, endpoint: 'https://push.example/send/renewed-1' };

/** Push is off (no push.subject) until the undo. */
function pushOff(b: BoardApp) {
  return () => {
    const running = b.settings();
    b.applySettings({ ...running, push: { ...running.push, subject: null } });
    return () => {
      b.applySettings(running);
    };
  };
}

/**
 * Every operation of the board's OpenAPI document, with a request it takes and the answers
 * particular to it. An operation added to the board without an entry here fails the test.
 */
function boardTable(b: BoardApp, client: FakeClient): Record<string, OperationEntry> {
  const boardEtag = async () => {
    const { etag, release } = b.board.registry.view();
    release();
    return { 'if-none-match': etag };
  };
  const subscribeRenewed = async () => {
    await b.app.inject({
      method: 'POST',
      url: '/api/push/subscriptions',
      headers: { authorization: `Bearer ${TOKEN}` },
      payload: RENEWED,
    });
    return () => undefined;
  };
  return {
    'GET /agent/SHA256SUMS': {
      path: '/agent/SHA256SUMS',
      provocations: [{ status: 200, why: 'the sums' }],
    },
    'GET /agent/SHA256SUMS.sig': {
      path: '/agent/SHA256SUMS.sig',
      provocations: [{ status: 200, why: 'the signature' }],
    },
    'GET /agent/update-key': {
      path: '/agent/update-key',
      provocations: [{ status: 200, why: 'the public key' }],
    },
    'GET /agent/{file}': {
      path: '/agent/panoptes-agent.mjs',
      provocations: [
        { status: 200, why: 'the file' },
        { status: 304, why: 'the ETag it has', headers: { 'if-none-match': AGENT_ETAG } },
        { status: 404, why: 'no agent file built', arrange: agentFileMissing },
      ],
    },
    'GET /api/board': {
      path: '/api/board',
      provocations: [
        { status: 200, why: 'the board' },
        { status: 304, why: 'the ETag it has', headers: boardEtag },
        { status: 200, why: 'a selector', path: '/api/board?selector=env%3Dprod' },
        { status: 422, why: 'a selector that does not parse', path: '/api/board?selector=%2C' },
      ],
    },
    'GET /api/groups': { path: '/api/groups', provocations: [] },
    'GET /api/checks': { path: '/api/checks', provocations: [] },
    'GET /api/checks/mine': {
      path: '/api/checks/mine?name=nosuch',
      otherTokenOpens: true,
      provocations: [{ status: 404, why: 'no such machine' }],
    },
    'GET /api/checks/{name}/history': {
      path: '/api/checks/api/history?range=1h',
      provocations: [
        { status: 200, why: 'a configured check' },
        { status: 404, why: 'no check of that name', path: '/api/checks/nosuch/history' },
        { status: 422, why: 'a range it does not know', path: '/api/checks/api/history?range=2h' },
      ],
    },
    'GET /api/me': { path: '/api/me', provocations: [] },
    'POST /api/tokens': {
      path: '/api/tokens',
      body: { name: 'statuses', role: 'viewer' },
      provocations: [
        { status: null, why: 'made, or its name is taken' },
        {
          status: 422,
          why: 'a selector that does not parse',
          body: JSON.stringify({ name: 'statuses2', role: 'viewer', selector: ',' }),
        },
      ],
    },
    'GET /api/tokens': { path: '/api/tokens', provocations: [] },
    'DELETE /api/tokens/{id}': {
      path: '/api/tokens/nosuch',
      provocations: [{ status: 404, why: 'no such token' }],
    },
    'GET /auth/methods': { path: '/auth/methods', provocations: [] },
    'POST /auth/logout': { path: '/auth/logout', provocations: [] },
    'GET /api/people': { path: '/api/people', provocations: [{ status: 200, why: 'the people' }] },
    'POST /api/people': { path: '/api/people', provocations: [] },
    'PUT /api/people/{name}': { path: '/api/people/ada', provocations: [] },
    'DELETE /api/people/{name}': {
      path: '/api/people/ada',
      provocations: [{ status: 404, why: 'no such person' }],
    },
    'POST /api/people/{name}/link': { path: '/api/people/ada/link', provocations: [] },
    'POST /auth/password': {
      path: '/auth/password',
      body: { name: 'nobody', password: 'not the password' },
      provocations: [{ status: 401, why: 'wrong name or password', token: null }],
    },
    'POST /auth/passkey/options': { path: '/auth/passkey/options', provocations: [] },
    'POST /auth/passkey': { path: '/auth/passkey', provocations: [] },
    'POST /auth/signup': {
      path: '/auth/signup',
      body: { link: 'not-a-link-of-this-board-0123456789' },
      provocations: [{ status: 404, why: 'a link that is not valid', token: null }],
    },
    'POST /auth/signup/password': { path: '/auth/signup/password', provocations: [] },
    'POST /auth/signup/passkey/options': { path: '/auth/signup/passkey/options', provocations: [] },
    'POST /auth/signup/passkey': { path: '/auth/signup/passkey', provocations: [] },
    'GET /api/cluster': { path: '/api/cluster', provocations: [] },
    'GET /api/journal': { path: '/api/journal?limit=5', provocations: [] },
    'GET /api/health': { path: '/api/health', provocations: [{ status: 200, why: 'up' }] },
    'GET /api/openapi.json': { path: '/api/openapi.json', provocations: [] },
    'GET /api/languages': { path: '/api/languages', provocations: [] },
    'GET /api/language/{code}': {
      path: '/api/language/en',
      provocations: [
        { status: 200, why: 'a built-in language' },
        { status: 404, why: 'no such language', path: '/api/language/xx' },
      ],
    },
    'GET /api/notify': { path: '/api/notify', provocations: [] },
    'POST /api/notify/test': {
      path: '/api/notify/test',
      body: { channel: 'hook' },
      provocations: [
        { status: 200, why: 'delivered' },
        { status: 404, why: 'no such channel', body: JSON.stringify({ channel: 'nosuch' }) },
        { status: 502, why: 'not delivered', body: JSON.stringify({ channel: 'down' }) },
      ],
    },
    'GET /api/uptime': { path: '/api/uptime', provocations: [] },
    'GET /api/push/{token}': {
      path: `/api/push/${BEAT}?status=up`,
      provocations: [
        { status: 200, why: "a push check's token" },
        {
          status: 404,
          why: 'a token no push check has',
          path: '/api/push/nosuch-token-0123456789',
        },
        { status: 422, why: 'a status it does not know', path: `/api/push/${BEAT}?status=maybe` },
      ],
    },
    'POST /api/push/{token}': {
      path: `/api/push/${BEAT}?status=down&msg=failed`,
      provocations: [
        { status: 200, why: "a push check's token" },
        {
          status: 404,
          why: 'a token no push check has',
          path: '/api/push/nosuch-token-0123456789',
        },
      ],
    },
    'GET /api/push/key': {
      path: '/api/push/key',
      provocations: [
        { status: 200, why: 'push is on' },
        { status: 409, why: 'push is off (no push.subject)', arrange: pushOff(b) },
      ],
    },
    'POST /api/push/subscriptions': {
      path: '/api/push/subscriptions',
      body: SUBSCRIPTION,
      provocations: [
        { status: 200, why: 'a subscription' },
        { status: 200, why: 'the same subscription again' },
        {
          status: 422,
          why: 'an http: endpoint without push.allow_http_endpoints',
          body: JSON.stringify({ ...SUBSCRIPTION, endpoint: 'http://push.example/send/1' }),
        },
        {
          status: 422,
          why: 'keys that are no P-256 key and no 16-byte secret',
          body: JSON.stringify({ ...SUBSCRIPTION, keys: { p256dh: 'AAAA', auth: 'AAAA' } }),
        },
        { status: 409, why: 'push is off (no push.subject)', arrange: pushOff(b) },
        {
          status: 409,
          why: 'push.max_subscriptions are kept',
          body: JSON.stringify({ ...SUBSCRIPTION, endpoint: 'https://push.example/send/2' }),
          arrange: () => {
            const running = b.settings();
            b.applySettings({ ...running, push: { ...running.push, maxSubscriptions: 1 } });
            return () => {
              b.applySettings(running);
            };
          },
        },
        {
          status: 503,
          why: 'the store cannot keep the subscription',
          body: JSON.stringify({ ...SUBSCRIPTION, endpoint: 'https://push.example/send/3' }),
          arrange: storeRefuses,
        },
      ],
    },
    'POST /api/push/subscriptions/{id}/renew': {
      path: `/api/push/subscriptions/${subscriptionId(RENEWED.endpoint)}/renew`,
      body: {
        auth: RENEWED.keys.auth,
        subscription: { ...RENEWED, endpoint: 'https://push.example/send/renewed-2' },
      },
      provocations: [
        { status: 200, why: "the old subscription's auth secret", arrange: subscribeRenewed },
        {
          status: 404,
          why: 'another auth secret',
          body: JSON.stringify({ auth: 'AAAAAAAAAAAAAAAAAAAAAA', subscription: RENEWED }),
        },
        {
          status: 422,
          why: 'no subscription in the body',
          body: JSON.stringify({ auth: RENEWED.keys.auth }),
        },
        { status: 409, why: 'push is off (no push.subject)', arrange: pushOff(b) },
        {
          status: 503,
          why: 'the store cannot replace the subscription',
          arrange: async () => {
            await subscribeRenewed();
            return storeRefuses();
          },
        },
      ],
    },
    'DELETE /api/push/subscriptions/{id}': {
      path: '/api/push/subscriptions/nosuch',
      provocations: [
        { status: 404, why: 'no such subscription' },
        {
          status: 200,
          why: 'a subscription',
          path: `/api/push/subscriptions/${subscriptionId(SUBSCRIPTION.endpoint)}`,
          arrange: async () => {
            await b.app.inject({
              method: 'POST',
              url: '/api/push/subscriptions',
              headers: { authorization: `Bearer ${TOKEN}` },
              payload: SUBSCRIPTION,
            });
            return () => undefined;
          },
        },
        { status: 409, why: 'push is off (no push.subject)', arrange: pushOff(b) },
        { status: 503, why: 'the store cannot delete it', arrange: storeRefuses },
      ],
    },
    'GET /metrics': { path: '/metrics', provocations: [] },
    ...machineOperations(b, client),
    ...selectorSilenceOperations(b, TOKEN),
  };
}

describe('every status a board operation answers is in its OpenAPI description', () => {
  let dir: TempDir;
  let b: BoardApp;
  let client: FakeClient;
  let hook: Server;
  let doc: Doc;
  let program: ProgramUnderTest;
  let table: Record<string, OperationEntry>;
  let addresses = 0;

  beforeAll(async () => {
    dir = tempDir('panoptes-statuses-');
    hook = createServer((_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
    const hookPort = (hook.address() as AddressInfo).port;
    client = new FakeClient();
    b = await buildBoard({
      settings: boardSettings(
        {
          board_token: TOKEN,
          registration_token: REGISTRATION,
          data_dir: dir.path,
          trusted_proxies: ['127.0.0.1'],
          machines: [{ name: 'web1', url: WEB1, key: 'statuses-web1-key-0123456789' }],
          announced_keys: { lab3: LAB3_KEY },
          push: { subject: 'mailto:ops@example.org' },
          checks: [
            {
              name: 'api',
              type: 'http',
              target: 'http://api.example/',
              runners: { selector: 'env' },
            },
            { name: 'cron', type: 'push', period: '1h', token: BEAT },
          ],
          notify: {
            channels: [
              { name: 'hook', url: `http://127.0.0.1:${hookPort}/hook` },
              { name: 'down', url: 'http://127.0.0.1:1/hook' },
            ],
          },
        },
        `${dir.path}/board.yaml`,
        null,
      ),
      logger: createLogger('board', 'silent'),
      clock: new ManualClock(Date.parse('2026-03-01T00:00:00Z')),
      client,
      agentFiles: dirname(dir.write('panoptes-agent.mjs', AGENT_BYTES)),
    });
    const url = await b.app.listen({ host: '127.0.0.1', port: 0 });
    await b.board.report(registrationWho(''), {
      name: 'lab1',
      location: 'http://127.0.0.1:1/lab1',
    });
    program = {
      url,
      token: TOKEN,
      otherToken: REGISTRATION,
      bodyLimit: (op) => (op === 'POST /api/report' ? REPORT_LIMIT_BYTES : BODY_LIMIT_BYTES),
      freshAddress: () => {
        addresses += 1;
        return `10.${(addresses >> 16) & 255}.${(addresses >> 8) & 255}.${addresses & 255}`;
      },
      maxFailures: 20,
    };
    const r = await fetch(`${url}/api/openapi.json`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    doc = (await r.json()) as Doc;
    table = boardTable(b, client);
  });
  afterAll(async () => {
    await b?.close();
    await new Promise((resolve) => hook?.close(resolve));
    dir?.cleanup();
  });

  it('every operation in the description has provocations listed, and nothing else does', () => {
    expect(unlisted(doc, table)).toEqual([]);
  });

  it('each provocation is answered as listed, and the description lists that status', async () => {
    expect(await disagreements(doc, program, table)).toEqual([]);
  }, 120_000);
});
