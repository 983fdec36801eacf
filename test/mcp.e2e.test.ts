import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningProgram, startAgent, startBoard } from '../harness/processes.js';
import { BOARD_KEY, OPERATOR, REGISTRATION, SECRETS } from './helpers/agent-fixtures.js';
import {
  eventually,
  Recorder,
  ringBell,
  writeAgentConfig,
  writeBoardConfig,
} from './helpers/fleet.js';
import { scanForSecretsAfterAll } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

const TOKEN = 'mcp-e2e-board-token-4b8e2d7c91'; // secret-scan: token

interface Entry {
  who: string;
  actor?: { kind: string; name: string };
  op: string;
  target: string;
  outcome: string;
  status: number | null;
  detail: string;
}
interface Session {
  machine: string;
  session: string;
  why: string;
  acknowledged_at: string | null;
}

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'raw', version: '1' },
  },
};

/**
 * POST /mcp end to end: a real agent publishing a service to the board and ringing bells, a
 * real board polling it, and the SDK's own client calling every tool with the board token.
 */
describe('the board as an MCP server', () => {
  const dir = tempDir('panoptes-mcp-');
  const http = new Recorder();
  let agent: RunningProgram;
  let board: RunningProgram;
  let client: Client;
  /** The API tokens made (the scan looks for them everywhere but their own answer). */
  const apiTokens: string[] = [];

  const connect = async (token: string | null): Promise<Client> => {
    const c = new Client({ name: 'panoptes-test', version: '1.0.0' });
    const headers: Record<string, string> =
      token === null ? {} : { authorization: `Bearer ${token}` };
    await c.connect(
      new StreamableHTTPClientTransport(new URL(`${board.url}/mcp`), { requestInit: { headers } }),
    );
    return c;
  };
  const call = async (name: string, args: Record<string, unknown> = {}) =>
    (await client.callTool({ name, arguments: args })) as CallToolResult;
  const structured = <T>(result: CallToolResult): T => {
    expect(result.isError ?? false, JSON.stringify(result.content)).toBe(false);
    const text = (result.content[0] as { text: string }).text;
    expect(JSON.parse(text)).toEqual(result.structuredContent);
    return result.structuredContent as T;
  };
  const errorText = (result: CallToolResult): string => {
    expect(result.isError).toBe(true);
    return (result.content[0] as { text: string }).text;
  };
  const ring = async (session: string, why: string, text: string) => {
    expect(await ringBell(http, agent.url, OPERATOR, { session, why, text })).toBe(200);
  };
  const journal = async () =>
    (
      (await http.call(`${board.url}/api/journal?limit=50`, { token: TOKEN })).json as {
        entries: Entry[];
      }
    ).entries;
  const post = (body: string, init: { token?: string; type?: string } = {}) =>
    http.call(`${board.url}/mcp`, {
      method: 'POST',
      ...(init.token === undefined ? {} : { token: init.token }),
      headers: {
        'content-type': init.type ?? 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body,
    });

  beforeAll(async () => {
    agent = await startAgent(
      writeAgentConfig(dir, 'web1', {
        name: 'web1',
        token: OPERATOR,
        board_key: BOARD_KEY,
        data_dir: `${dir.path}/web1-data`,
        services: { backup: { start: ['true'], stop: ['true'], board: ['start'] } },
      }),
    );
    await ring('build', 'attention', 'Which branch?');
    await ring('docs', 'finished', 'Docs written');
    board = await startBoard(
      writeBoardConfig(dir, 'board', {
        board_token: TOKEN,
        registration_token: REGISTRATION,
        sweep_interval: 0.5,
        machines: [{ name: 'web1', url: agent.url, key: BOARD_KEY, labels: { env: 'prod' } }],
        history: false,
      }),
    );
    client = await connect(TOKEN);
  }, 60_000);
  afterAll(async () => {
    await client?.close();
    await board?.stop();
    await agent?.stop();
    dir.cleanup();
  });

  it('is opened by the board token only: 401 without it or with a wrong one, 403 for the registration token', async () => {
    const body = JSON.stringify(INITIALIZE);
    expect((await post(body)).status).toBe(401);
    expect((await post(body, { token: 'not-the-token' })).status).toBe(401);
    const registration = await post(body, { token: REGISTRATION });
    expect(registration.status).toBe(403);
    expect(registration.json).toEqual({
      detail: 'The registration token only opens POST /api/report',
    });
    await expect(connect(null)).rejects.toMatchObject({ code: 401 });
    const good = await post(body, { token: TOKEN });
    expect(good.status).toBe(200);
    expect(good.json).toMatchObject({
      jsonrpc: '2.0',
      id: 1,
      result: { protocolVersion: expect.any(String) },
    });
    expect(good.headers.get('mcp-session-id')).toBeNull();
    // Journaled as any route's refusals are (a request with no token at all is not).
    const refused = (await journal()).filter((e) => e.op === 'auth' && e.target !== '*');
    expect(refused.map((e) => [e.status, e.detail.split(' from ')[0]])).toEqual([
      [403, 'token not valid here: POST /mcp'],
      [401, 'wrong token: POST /mcp'],
    ]);
  });

  it('answers GET and DELETE 405 (stateless), bad JSON as a JSON-RPC parse error, and keeps the 1 MiB limit', async () => {
    for (const method of ['GET', 'DELETE']) {
      const r = await http.call(`${board.url}/mcp`, { method, token: TOKEN });
      expect(r.status, method).toBe(405);
    }
    const bad = await post('{"jsonrpc":', { token: TOKEN });
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({ jsonrpc: '2.0', error: { code: -32700 }, id: null });
    const deep = await post(`${'['.repeat(500)}${']'.repeat(500)}`, { token: TOKEN });
    expect(deep.status).toBe(400);
    const text = await post(JSON.stringify(INITIALIZE), { token: TOKEN, type: 'text/plain' });
    expect(text.status).toBe(415);
    const big = await post(`"${'x'.repeat(1024 * 1024)}"`, { token: TOKEN });
    expect(big.status).toBe(413);
  });

  it('lists the six tools', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      'acknowledge_session',
      'do_action',
      'list_checks',
      'list_machines',
      'list_sessions',
      'read_journal',
    ]);
  });

  it('list_machines: every machine as of the last sweep, bounded, never a key', async () => {
    const list = await eventually(async () => {
      const l = structured<{ up: number; machines: Record<string, unknown>[] }>(
        await call('list_machines'),
      );
      return l.up === 1 ? l : undefined;
    }, 'web1 up');
    expect(list).toMatchObject({ total: 1, up: 1, down: 0, late: 0, queued: 0 });
    expect(list.machines).toEqual([
      expect.objectContaining({
        name: 'web1',
        origin: 'configured',
        state: 'up',
        late: false,
        location: agent.url,
        error: null,
        queued: 0,
        silenced_until: null,
        bells: 1,
      }),
    ]);
    expect(list.machines[0]).not.toHaveProperty('key');
    const none = structured<{ total: number; machines: unknown[] }>(
      await call('list_machines', { limit: 1 }),
    );
    expect(none.machines).toHaveLength(1);
    expect(errorText(await call('list_machines', { limit: 0 }))).toContain('limit');
  });

  it('list_machines with a selector: only the machines it selects, counted; a bad one names the position', async () => {
    const prod = structured<{ total: number; machines: Record<string, unknown>[] }>(
      await call('list_machines', { selector: 'env=prod' }),
    );
    expect(prod.total).toBe(1);
    expect(prod.machines).toEqual([
      expect.objectContaining({ name: 'web1', labels: { env: 'prod' } }),
    ]);
    const dev = structured<{ total: number; up: number; machines: unknown[] }>(
      await call('list_machines', { selector: 'env in (dev,test)' }),
    );
    expect(dev).toMatchObject({ total: 0, up: 0, machines: [] });
    const bad = await call('list_machines', { selector: 'env in (dev' });
    expect(errorText(bad)).toMatch(/^Input validation error: selector: .* at position \d+$/);
    expect(bad.structuredContent).toMatchObject({ status: 422 });
  });

  it('list_sessions and acknowledge_session: the open session, acknowledged, journaled as through MCP', async () => {
    const open = await eventually(async () => {
      const page = structured<{ sessions: Session[]; total: number }>(
        await call('list_sessions', { state: 'open' }),
      );
      return page.total === 1 ? page : undefined;
    }, 'the attention bell listed');
    expect(open.sessions).toEqual([
      expect.objectContaining({ machine: 'web1', session: 'build', why: 'attention' }),
    ]);
    const all = structured<{ sessions: Session[]; total: number }>(await call('list_sessions'));
    expect(all.sessions.map((s) => s.session)).toEqual(['build', 'docs']);

    const ack = structured<{ status: number; body: Session }>(
      await call('acknowledge_session', { machine: 'web1', session: 'build' }),
    );
    expect(ack).toMatchObject({ status: 200, body: { machine: 'web1', session: 'build' } });
    const after = structured<{ total: number }>(await call('list_sessions', { state: 'open' }));
    expect(after.total).toBe(0);
    const entry = (await journal()).find((e) => e.op === 'ack');
    expect(entry).toMatchObject({
      who: 'board',
      target: 'web1/build',
      outcome: 'acknowledged',
      detail: expect.stringMatching(/ \(via MCP\)$/),
    });

    expect(
      errorText(await call('acknowledge_session', { machine: 'web1', session: 'nosuch' })),
    ).toBe("404 Not Found: Machine 'web1' lists no session named 'nosuch'");
    expect(
      errorText(await call('acknowledge_session', { machine: 'web1', session: 'a\nb' })),
    ).toContain('Input validation error');
  });

  it('do_action: exactly POST /api/do (relayed, allow-list, journal naming the MCP caller)', async () => {
    const started = await call('do_action', { machine: 'web1', what: 'backup', action: 'start' });
    const answer = structured<{ status: number; body: { ok: boolean } }>(started);
    expect(answer).toMatchObject({ status: 200, body: { ok: true } });
    const entries = await journal();
    expect(entries.find((e) => e.op === 'do' && e.target === 'web1/backup/start')).toMatchObject({
      who: 'board',
      outcome: 'done',
      status: 200,
      detail: 'ok (exit 0) (via MCP)',
    });

    // Not published for the board: the machine refuses, and the refusal is a tool error.
    const stop = await call('do_action', { machine: 'web1', what: 'backup', action: 'stop' });
    expect(errorText(stop)).toMatch(/^403 Forbidden: /);
    expect(stop.structuredContent).toMatchObject({ status: 403 });
    const refused = (await journal()).find((e) => e.target === 'web1/backup/stop');
    expect(refused).toMatchObject({ who: 'board', outcome: 'refused', status: 403 });
    expect(refused?.detail).toMatch(/ \(via MCP\)$/);

    expect(
      errorText(await call('do_action', { machine: 'nosuch', what: 'backup', action: 'start' })),
    ).toBe("404 Not Found: No machine named 'nosuch' on this board");
    // The same request over HTTP is journaled without the mark.
    const direct = await http.call(`${board.url}/api/do/web1/backup/start`, {
      method: 'POST',
      token: TOKEN,
    });
    expect(direct.status).toBe(200);
    expect((await journal())[0]).toMatchObject({
      target: 'web1/backup/start',
      detail: 'ok (exit 0)',
    });

    // Bad arguments are tool errors, and the server goes on.
    for (const args of [
      { machine: 'bad name!', what: 'backup', action: 'start' },
      { machine: 'web1', what: 'backup', action: 'restart' },
      { machine: 'web1', what: 'backup' },
      { machine: 'web1', what: ['backup'], action: 'start' },
    ]) {
      expect(errorText(await call('do_action', args)), JSON.stringify(args)).toContain(
        'Input validation error',
      );
    }
    expect(errorText(await call('no_such_tool'))).toContain('not found');
    expect((await client.listTools()).tools).toHaveLength(6);
  });

  it('read_journal: the journal, most recent first, bounded', async () => {
    const page = structured<{ entries: Entry[] }>(await call('read_journal', { limit: 3 }));
    expect(page.entries).toHaveLength(3);
    expect(page.entries).toEqual((await journal()).slice(0, 3));
    expect(errorText(await call('read_journal', { limit: 100_000 }))).toContain('limit');
  });

  it('with API tokens: a viewer is offered no acting tool; an operator over env=prod acts on the real agent, journaled as mcp; one over env=staging sees nothing', async () => {
    const make = async (name: string, role: string, selector?: string) => {
      const r = await http.call(`${board.url}/api/tokens`, {
        method: 'POST',
        token: TOKEN,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name, role, ...(selector === undefined ? {} : { selector }) }),
      });
      expect(r.status).toBe(201);
      const made = (r.json as { token: string }).token;
      apiTokens.push(made);
      return made;
    };
    const viewer = await connect(await make('mcp-viewer', 'viewer'));
    const prod = await connect(await make('mcp-prod', 'operator', 'env=prod'));
    const staging = await connect(await make('mcp-staging', 'operator', 'env=staging'));
    try {
      const names = async (c: Client) => (await c.listTools()).tools.map((t) => t.name).sort();
      expect(await names(viewer)).toEqual([
        'list_checks',
        'list_machines',
        'list_sessions',
        'read_journal',
      ]);
      const started = (await prod.callTool({
        name: 'do_action',
        arguments: { machine: 'web1', what: 'backup', action: 'start' },
      })) as CallToolResult;
      expect(structured<{ status: number }>(started).status).toBe(200);
      const done = (await journal()).find((e) => e.op === 'do' && e.outcome === 'done');
      expect(done).toMatchObject({
        target: 'web1/backup/start',
        actor: { kind: 'mcp', name: 'mcp-prod' },
      });
      const seen = structured<{ total: number }>(
        (await staging.callTool({ name: 'list_machines', arguments: {} })) as CallToolResult,
      );
      expect(seen.total).toBe(0);
      const refused = (await staging.callTool({
        name: 'do_action',
        arguments: { machine: 'web1', what: 'backup', action: 'start' },
      })) as CallToolResult;
      expect(errorText(refused)).toBe("404 Not Found: No machine named 'web1' on this board");
    } finally {
      for (const c of [viewer, prod, staging]) await c.close();
    }
  });

  scanForSecretsAfterAll(() => ({
    secrets: [TOKEN, ...SECRETS, ...apiTokens],
    recorders: [http],
    dirs: [dir.path],
    // POST /api/tokens answers its own token, once, by design.
    allowText: (text) => text.startsWith('{"id":') && text.includes('"token":"pnp_'),
  }));
});
