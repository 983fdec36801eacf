import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type BoardApp, buildBoard } from '../src/board/app.js';
import { boardSettings } from '../src/board/config/config.js';
import type { RelayOutcome } from '../src/board/domain/agent-client.js';
import { AgentFiles } from '../src/board/enroll/agent-files.js';
import { REPORT_LIMIT_BYTES } from '../src/board/http/action-routes.js';
import { subscriptionId } from '../src/board/notify/push.js';
import { StoreHealth } from '../src/board/store/store-health.js';
import { ManualClock } from '../src/shared/clock.js';
import { BODY_LIMIT_BYTES } from '../src/shared/http/errors.js';
import { createLogger } from '../src/shared/logger.js';
import { FakeClient } from './helpers/board-kit.js';
import {
  type Doc,
  disagreements,
  type OperationEntry,
  type ProgramUnderTest,
  unlisted,
} from './helpers/status-provocations.js';
import { type TempDir, tempDir } from './helpers/tmp.js';

const TOKEN = 'statuses-board-token-0123456789';
const REGISTRATION = 'statuses-registration-0123456789';
const LAB3_KEY = 'statuses-lab3-key-0123456789';
const WEB1 = 'http://web1.invalid:8701';
const AGENT_BYTES = 'export const agent = 1;\n';
const AGENT_ETAG = `"${createHash('sha256').update(AGENT_BYTES).digest('hex')}"`;

/** The agent the board relays to answers this until the undo. */
function agentAnswers(client: FakeClient, outcome: RelayOutcome) {
  return () => {
    client.answers.set(WEB1, outcome);
    return () => client.answers.delete(WEB1);
  };
}

/** The store fails every write until the undo (what a full disk or a lost database does). */
function storeRefuses() {
  const guard = StoreHealth.prototype.guard;
  const spy = vi.spyOn(StoreHealth.prototype, 'guard').mockImplementation(function (
    this: StoreHealth,
    what: string,
  ) {
    return guard.call(this, what, () => Promise.reject(new Error('disk I/O error')));
  });
  return () => spy.mockRestore();
}

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

/** The one-file agent is not built (until the undo). */
function agentFileMissing() {
  const spy = vi.spyOn(AgentFiles.prototype, 'get').mockResolvedValue(null);
  return () => spy.mockRestore();
}

/**
 * Every operation of the board's OpenAPI document, with a request it takes and the answers
 * particular to it. An operation added to the board without an entry here fails the test.
 */
function boardTable(b: BoardApp, client: FakeClient): Record<string, OperationEntry> {
  const report = async (name: string) =>
    b.board.report('registration', { name, location: `http://127.0.0.1:1/${name}` } as never);
  const reported = (name: string) => async () => {
    await report(name);
    return () => undefined;
  };
  /** An announced machine whose session `claude · webshop` wants a person. */
  const rang = (name: string) => async () => {
    await b.board.report('registration', {
      name,
      location: `http://127.0.0.1:1/${name}`,
      sessions: [
        {
          session: 'claude · webshop',
          why: 'attention',
          text: 'needs a decision',
          at: '2026-03-01T00:00:00.000Z',
        },
      ],
    } as never);
    return () => undefined;
  };
  const OLD_SHA = '0'.repeat(64);
  const optedIn = { updates: 'on', agent_file: 'panoptes-agent.mjs', agent_sha256: OLD_SHA };
  /** An announced machine that takes updates and runs an older file than the board's. */
  const behind = (name: string) => async () => {
    await b.board.report('registration', {
      name,
      location: `http://127.0.0.1:1/${name}`,
      ...optedIn,
    } as never);
    return () => b.board.registry.forget(name);
  };
  /** web1 takes updates, runs an older file, and its agent answers the update with `outcome`. */
  const web1Behind = (outcome: RelayOutcome) => () => {
    const web1 = b.board.registry.get('web1');
    if (web1 !== undefined) b.board.registry.observe(web1, { ok: true, overview: optedIn });
    client.updateAnswers.set(WEB1, outcome);
    return () => client.updateAnswers.delete(WEB1);
  };
  const boardEtag = async () => {
    const { etag, release } = b.board.registry.view();
    release();
    return { 'if-none-match': etag };
  };
  return {
    'GET /agent/SHA256SUMS': {
      path: '/agent/SHA256SUMS',
      provocations: [{ status: 200, why: 'the sums' }],
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
      ],
    },
    'GET /api/cluster': { path: '/api/cluster', provocations: [] },
    'POST /api/do/{name}/{what}/{action}': {
      path: '/api/do/web1/backup/start',
      provocations: [
        {
          status: 200,
          why: 'relayed and done',
          arrange: agentAnswers(client, { kind: 'answer', status: 200, body: { ok: true } }),
        },
        { status: 200, why: 'queued for an announced machine', path: '/api/do/lab1/backup/start' },
        { status: 404, why: 'no machine of that name', path: '/api/do/nosuch/backup/start' },
        { status: 502, why: 'the machine is unreachable' },
        {
          status: 504,
          why: 'the machine did not answer in time',
          arrange: agentAnswers(client, { kind: 'timeout', error: 'timed out' }),
        },
        ...[403, 404, 409, 418, 500].map((status) => ({
          status,
          why: `the machine's own ${status}, passed through`,
          arrange: agentAnswers(client, { kind: 'answer', status, body: { detail: 'no' } }),
        })),
        {
          status: 503,
          why: 'the store cannot keep the queued action',
          path: '/api/do/lab1/backup/start',
          arrange: storeRefuses,
        },
      ],
    },
    'POST /api/report': {
      path: '/api/report',
      body: { name: 'lab1', location: 'http://127.0.0.1:1/lab1' },
      otherTokenOpens: true,
      provocations: [
        { status: 200, why: 'a report' },
        { status: 200, why: 'a report with the registration token', token: REGISTRATION },
        {
          status: 403,
          why: 'a name with a key, without key_proof',
          body: JSON.stringify({ name: 'lab3', location: 'http://127.0.0.1:1/lab3' }),
        },
        {
          status: 409,
          why: 'a configured name',
          body: JSON.stringify({ name: 'web1', location: 'http://127.0.0.1:1/web1' }),
        },
      ],
    },
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
    'DELETE /api/machines/{name}': {
      path: '/api/machines/nosuch',
      provocations: [
        { status: 404, why: 'no machine of that name' },
        { status: 409, why: 'a configured machine', path: '/api/machines/web1' },
        {
          status: 200,
          why: 'an announced machine',
          path: '/api/machines/lab-gone',
          arrange: reported('lab-gone'),
        },
        {
          status: 503,
          why: 'the store cannot record that it is gone',
          path: '/api/machines/lab-kept',
          arrange: async () => {
            await report('lab-kept');
            return storeRefuses();
          },
        },
      ],
    },
    'GET /api/machines/{name}/history': {
      path: '/api/machines/web1/history?range=1h',
      provocations: [
        { status: 200, why: 'a configured machine' },
        { status: 404, why: 'no machine of that name', path: '/api/machines/nosuch/history' },
        {
          status: 422,
          why: 'from after to',
          path: '/api/machines/web1/history?from=2000&to=1000',
        },
      ],
    },
    'GET /api/machines/{name}/events': {
      path: '/api/machines/web1/events',
      provocations: [
        { status: 404, why: 'no machine of that name', path: '/api/machines/nosuch/events' },
      ],
    },
    'POST /api/machines/{name}/enroll': {
      path: '/api/machines/new1/enroll',
      provocations: [
        { status: 200, why: 'a new name' },
        { status: 409, why: 'a configured machine', path: '/api/machines/web1/enroll' },
        { status: 409, why: 'a name with a key in the config', path: '/api/machines/lab3/enroll' },
        { status: 503, why: 'no agent file built', arrange: agentFileMissing },
        { status: 503, why: 'the store cannot keep the key', arrange: storeRefuses },
      ],
    },
    'GET /api/enrollments': { path: '/api/enrollments', provocations: [] },
    'POST /api/machines/{name}/silence': {
      path: '/api/machines/web1/silence',
      body: { minutes: 10, reason: 'maintenance' },
      provocations: [
        { status: 200, why: 'a machine' },
        { status: 404, why: 'no machine of that name', path: '/api/machines/nosuch/silence' },
        { status: 503, why: 'the store cannot keep the silence', arrange: storeRefuses },
      ],
    },
    'DELETE /api/machines/{name}/silence': {
      path: '/api/machines/web1/silence',
      provocations: [
        { status: 200, why: 'a machine' },
        { status: 404, why: 'no machine of that name', path: '/api/machines/nosuch/silence' },
        { status: 503, why: 'the store cannot end the silence', arrange: storeRefuses },
      ],
    },
    'GET /api/sessions': {
      path: '/api/sessions?state=open&limit=10',
      provocations: [
        { status: 200, why: 'every session', path: '/api/sessions' },
        { status: 422, why: 'a state other than open or all', path: '/api/sessions?state=new' },
        { status: 422, why: 'a limit over 10,000', path: '/api/sessions?limit=10001' },
      ],
    },
    'POST /api/sessions/{machine}/{session}/ack': {
      path: `/api/sessions/lab-bell/${encodeURIComponent('claude · webshop')}/ack`,
      // A session's name is free text: a line feed is what does not validate.
      invalidParams: { session: 'a%0Ab' },
      provocations: [
        { status: 200, why: 'a session of a machine', arrange: rang('lab-bell') },
        { status: 404, why: 'no machine of that name', path: '/api/sessions/nosuch/s/ack' },
        { status: 404, why: 'no session of that name', path: '/api/sessions/lab-bell/nosuch/ack' },
        {
          status: 503,
          why: 'the store cannot keep the acknowledgement',
          path: `/api/sessions/lab-kept-bell/${encodeURIComponent('claude · webshop')}/ack`,
          arrange: async () => {
            await rang('lab-kept-bell')();
            return storeRefuses();
          },
        },
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
    'POST /api/machines/{name}/update': {
      path: '/api/machines/upd1/update',
      provocations: [
        { status: 202, why: 'an announced machine: queued', arrange: behind('upd1') },
        { status: 404, why: 'no machine of that name', path: '/api/machines/nosuch/update' },
        { status: 409, why: 'the agent did not opt in', path: '/api/machines/lab1/update' },
        {
          status: 409,
          why: "the agent's own refusal",
          path: '/api/machines/web1/update',
          arrange: web1Behind({ kind: 'answer', status: 409, body: { detail: 'busy' } }),
        },
        {
          status: 502,
          why: 'the machine is unreachable',
          path: '/api/machines/web1/update',
          arrange: web1Behind({ kind: 'unreachable', error: 'connection refused' }),
        },
        {
          status: 504,
          why: 'the machine did not answer in time',
          path: '/api/machines/web1/update',
          arrange: web1Behind({ kind: 'timeout', error: 'timed out' }),
        },
      ],
    },
    'POST /api/machines/update': {
      path: '/api/machines/update',
      body: {},
      provocations: [
        { status: 202, why: 'every machine that can be updated' },
        {
          status: 409,
          why: 'an update of all machines is under way',
          arrange: async () => {
            const undo = await behind('upd2')();
            await b.updates.requestAll('board');
            return undo;
          },
        },
      ],
    },
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
    await b.board.report('registration', { name: 'lab1', location: 'http://127.0.0.1:1/lab1' });
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
