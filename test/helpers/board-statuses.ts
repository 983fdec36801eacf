// The board's status table, the part on machines, and what makes the board give those answers.
import { vi } from 'vitest';
import type { BoardApp } from '../../src/board/app.js';
import type { RelayOutcome } from '../../src/board/domain/agent-client.js';
import { BOARD_WHO, registrationWho } from '../../src/board/domain/who.js';
import { AgentFiles } from '../../src/board/enroll/agent-files.js';
import { StoreHealth } from '../../src/board/store/store-health.js';
import type { FakeClient } from './board-kit.js';
import type { OperationEntry } from './status-provocations.js';

export const REGISTRATION = 'statuses-registration-0123456789';
export const WEB1 = 'http://web1.invalid:8701';

/** The agent the board relays to answers this until the undo. */
export function agentAnswers(client: FakeClient, outcome: RelayOutcome) {
  return () => {
    client.answers.set(WEB1, outcome);
    return () => client.answers.delete(WEB1);
  };
}

/** The store fails every write until the undo (what a full disk or a lost database does). */
export function storeRefuses() {
  const guard = StoreHealth.prototype.guard;
  const spy = vi.spyOn(StoreHealth.prototype, 'guard').mockImplementation(function (
    this: StoreHealth,
    what: string,
  ) {
    return guard.call(this, what, () => Promise.reject(new Error('disk I/O error')));
  });
  return () => spy.mockRestore();
}

/** The one-file agent is not built (until the undo). */
export function agentFileMissing() {
  const spy = vi.spyOn(AgentFiles.prototype, 'get').mockResolvedValue(null);
  return () => spy.mockRestore();
}

/**
 * The entries of the board's status table for the operations on machines: actions, reports,
 * history, enrolment, silences, sessions and updates.
 */
export function machineOperations(b: BoardApp, client: FakeClient): Record<string, OperationEntry> {
  const report = async (name: string) =>
    b.board.report(registrationWho(''), { name, location: `http://127.0.0.1:1/${name}` } as never);
  const reported = (name: string) => async () => {
    await report(name);
    return () => undefined;
  };
  /** An announced machine whose session `claude · webshop` wants a person. */
  const rang = (name: string) => async () => {
    await b.board.report(registrationWho(''), {
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
    await b.board.report(registrationWho(''), {
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
  return {
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
    'PUT /api/machines/{name}/labels': {
      path: '/api/machines/web1/labels',
      body: { labels: { env: 'prod' } },
      provocations: [
        { status: 200, why: 'a machine' },
        { status: 404, why: 'no machine of that name', path: '/api/machines/nosuch/labels' },
        {
          status: 422,
          why: 'a label that breaks the rule',
          body: JSON.stringify({ labels: { Env: 'x' } }),
        },
        { status: 503, why: 'the store cannot keep the labels', arrange: storeRefuses },
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
    'POST /api/sessions/{machine}/ack': {
      path: `/api/sessions/lab-bell-q/ack?session=${encodeURIComponent('claude · webshop')}`,
      provocations: [
        { status: 200, why: 'a session of a machine', arrange: rang('lab-bell-q') },
        { status: 404, why: 'no machine of that name', path: '/api/sessions/nosuch/ack?session=s' },
        {
          status: 404,
          why: 'no session of that name',
          path: '/api/sessions/lab-bell-q/ack?session=nosuch',
        },
        { status: 422, why: 'no session named', path: '/api/sessions/lab-bell-q/ack' },
        {
          status: 503,
          why: 'the store cannot keep the acknowledgement',
          path: `/api/sessions/lab-kept-bell-q/ack?session=${encodeURIComponent('claude · webshop')}`,
          arrange: async () => {
            await rang('lab-kept-bell-q')();
            return storeRefuses();
          },
        },
      ],
    },
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
          // A configured machine (an unverified announced name is never in "update all").
          arrange: async () => {
            const undo = web1Behind({ kind: 'answer', status: 202, body: { accepted: true } })();
            await b.updates.requestAll(BOARD_WHO);
            return undo;
          },
        },
      ],
    },
  };
}

/** The entries of the status table for the silences that name a label selector. */
export function selectorSilenceOperations(
  b: BoardApp,
  token: string,
): Record<string, OperationEntry> {
  /** The silence the 404's arrange starts: the 503 then cannot end it, the 200 does. */
  let id = 'nosuch';
  const started = async () => {
    const r = await b.app.inject({
      method: 'POST',
      url: '/api/silences',
      headers: { authorization: `Bearer ${token}` },
      payload: { selector: 'site=fra', minutes: 5 },
    });
    id = (r.json() as { id: string }).id;
    return () => undefined;
  };
  return {
    'GET /api/silences': { path: '/api/silences', provocations: [{ status: 200, why: 'always' }] },
    'POST /api/silences': {
      path: '/api/silences',
      body: { selector: 'site=fra,env!=dev', minutes: 10, reason: 'maintenance' },
      provocations: [
        { status: 201, why: 'a selector' },
        {
          status: 422,
          why: 'a selector that does not parse',
          body: JSON.stringify({ selector: 'site in (fra', minutes: 10 }),
        },
        {
          status: 422,
          why: 'an empty selector',
          body: JSON.stringify({ selector: ' ', minutes: 10 }),
        },
        { status: 503, why: 'the store cannot keep the silence', arrange: storeRefuses },
      ],
    },
    'DELETE /api/silences/{id}': {
      path: '/api/silences/nosuch',
      provocations: [
        { status: 404, why: 'no silence of that id', arrange: started },
        {
          status: 503,
          why: 'the store cannot end the silence',
          get path() {
            return `/api/silences/${id}`;
          },
          arrange: storeRefuses,
        },
        {
          status: 200,
          why: 'a running silence',
          get path() {
            return `/api/silences/${id}`;
          },
        },
      ],
    },
  };
}
