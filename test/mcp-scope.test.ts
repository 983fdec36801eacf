import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REGISTRATION, startTokenBoard, type TokenBoard } from './helpers/token-board.js';

interface Entry {
  op: string;
  target: string;
  outcome: string;
  actor: { kind: string; name: string };
}

/**
 * MCP with API tokens, through the SDK's own client over real HTTP: a viewer token is offered
 * no acting tool, and a token scoped to env=prod sees and acts on prod machines only (a
 * staging one answers as a machine that does not exist); what it does is journaled as `mcp`.
 */
describe('MCP by role and scope', () => {
  let t: TokenBoard;
  const clients: Client[] = [];

  const token = async (name: string, role: string, selector?: string) => {
    const r = await t.call('/api/tokens', {
      method: 'POST',
      body: { name, role, ...(selector === undefined ? {} : { selector }) },
    });
    expect(r.status).toBe(201);
    return (r.json as { token: string }).token;
  };
  const connect = async (bearer: string): Promise<Client> => {
    const c = new Client({ name: 'panoptes-test', version: '1.0.0' });
    await c.connect(
      new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${bearer}` } },
      }),
    );
    clients.push(c);
    return c;
  };
  const call = async (c: Client, name: string, args: Record<string, unknown> = {}) =>
    (await c.callTool({ name, arguments: args })) as CallToolResult;
  const data = <T>(r: CallToolResult): T => {
    expect(r.isError ?? false, JSON.stringify(r.content)).toBe(false);
    return r.structuredContent as T;
  };
  const text = (r: CallToolResult) => (r.content[0] as { text: string }).text;

  let viewer: Client;
  let prodOps: Client;
  let admin: Client;

  beforeAll(async () => {
    t = await startTokenBoard();
    viewer = await connect(await token('watcher', 'viewer'));
    prodOps = await connect(await token('prod-ops', 'operator', 'env=prod'));
    admin = await connect(await token('root', 'admin'));
  });
  afterAll(async () => {
    for (const c of clients) await c.close();
    await t?.close();
  });

  it('offers a viewer token no do_action and no acknowledge_session; an operator every tool', async () => {
    const names = async (c: Client) => (await c.listTools()).tools.map((x) => x.name).sort();
    expect(await names(viewer)).toEqual([
      'list_checks',
      'list_machines',
      'list_sessions',
      'read_journal',
    ]);
    expect(await names(prodOps)).toEqual([
      'acknowledge_session',
      'do_action',
      'list_checks',
      'list_machines',
      'list_sessions',
      'read_journal',
    ]);
    const refused = await call(viewer, 'do_action', {
      machine: 'web1',
      what: 'backup',
      action: 'start',
    });
    expect(refused.isError).toBe(true);
    expect(t.client.relays).toHaveLength(0);
  });

  it('answers only machines in scope: list_machines and list_sessions of env=prod hold web1 alone', async () => {
    const all = data<{ total: number; machines: { name: string }[] }>(
      await call(viewer, 'list_machines'),
    );
    expect(all.machines.map((m) => m.name)).toEqual(['db1', 'web1']);
    const prod = data<{ total: number; machines: { name: string }[] }>(
      await call(prodOps, 'list_machines'),
    );
    expect(prod.total).toBe(1);
    expect(prod.machines.map((m) => m.name)).toEqual(['web1']);
    const sessions = data<{ total: number; sessions: { machine: string }[] }>(
      await call(prodOps, 'list_sessions'),
    );
    expect(sessions.total).toBe(1);
    expect(sessions.sessions.map((s) => s.machine)).toEqual(['web1']);
    expect(data<{ total: number }>(await call(viewer, 'list_sessions')).total).toBe(2);
  });

  it('acts on a prod machine, journaled as mcp with the token name; a staging machine answers as an unknown one', async () => {
    const done = await call(prodOps, 'do_action', {
      machine: 'web1',
      what: 'backup',
      action: 'start',
    });
    expect(data<{ status: number }>(done).status).toBe(200);
    expect(t.client.relays.map((r) => r.target.url)).toEqual(['http://web1.test:8701']);
    const staging = await call(prodOps, 'do_action', {
      machine: 'db1',
      what: 'backup',
      action: 'start',
    });
    const nosuch = await call(prodOps, 'do_action', {
      machine: 'nosuch',
      what: 'backup',
      action: 'start',
    });
    expect(staging.isError).toBe(true);
    expect(text(staging)).toBe("404 Not Found: No machine named 'db1' on this board");
    expect(staging.structuredContent).toEqual({
      status: 404,
      body: { detail: "No machine named 'db1' on this board" },
    });
    expect(text(nosuch)).toBe("404 Not Found: No machine named 'nosuch' on this board");
    const ackStaging = await call(prodOps, 'acknowledge_session', {
      machine: 'db1',
      session: 'migrate',
    });
    expect(text(ackStaging)).toBe("404 Not Found: No machine named 'db1' on this board");
    const ack = await call(prodOps, 'acknowledge_session', { machine: 'web1', session: 'build' });
    expect(data<{ status: number }>(ack).status).toBe(200);
    expect(t.client.relays).toHaveLength(1);
    const entries = data<{ entries: Entry[] }>(
      await call(admin, 'read_journal', { actor: 'mcp:prod-ops' }),
    ).entries;
    expect(entries.map((e) => `${e.op} ${e.target} ${e.outcome}`).sort()).toEqual([
      'ack web1/build acknowledged',
      'do web1/backup/start done',
    ]);
    expect(entries.every((e) => e.actor.kind === 'mcp' && e.actor.name === 'prod-ops')).toBe(true);
  });

  it('read_journal holds only entries of machines in scope; a bad actor filter is a tool error', async () => {
    await call(admin, 'do_action', { machine: 'db1', what: 'backup', action: 'stop' });
    const everything = data<{ entries: Entry[] }>(await call(viewer, 'read_journal')).entries;
    expect(everything.some((e) => e.target.startsWith('db1/'))).toBe(true);
    // Sign-ins and token changes: an unscoped admin's only, as in GET /api/journal.
    expect(everything.some((e) => e.op === 'auth')).toBe(false);
    const all = data<{ entries: Entry[] }>(await call(admin, 'read_journal')).entries;
    expect(all.some((e) => e.op === 'auth')).toBe(true);
    const prod = data<{ entries: Entry[] }>(await call(prodOps, 'read_journal')).entries;
    expect(prod.length).toBeGreaterThan(0);
    expect(prod.every((e) => e.target.split('/')[0] === 'web1')).toBe(true);
    const bad = await call(prodOps, 'read_journal', { actor: 'root:me' });
    expect(bad.isError).toBe(true);
    expect(text(bad)).toContain('actor:');
  });

  it('every journal entry names its actor: board token, API token, machine report, MCP', async () => {
    const script = await token('script', 'operator');
    expect(
      (await t.call('/api/do/web1/backup/stop', { method: 'POST', token: script })).status,
    ).toBe(200);
    const report = await t.call('/api/report', {
      method: 'POST',
      body: { name: 'lab9', location: 'http://lab9.example:8701', hostname: 'lab9' },
      token: REGISTRATION,
    });
    expect(report.status).toBe(200);
    const entries = ((await t.call('/api/journal?limit=10000')).json as { entries: Entry[] })
      .entries;
    for (const e of entries) {
      expect(e.actor.kind, JSON.stringify(e)).toMatch(
        /^(person|token|board_token|machine|mcp|anonymous)$/,
      );
      expect(typeof e.actor.name).toBe('string');
    }
    const kinds = new Set(entries.map((e) => e.actor.kind));
    expect([...kinds].sort()).toEqual(
      expect.arrayContaining(['board_token', 'machine', 'mcp', 'token']),
    );
    const scripted = entries.find((e) => e.op === 'do' && e.target === 'web1/backup/stop');
    expect(scripted?.actor).toEqual({ kind: 'token', name: 'script' });
    const announced = entries.find((e) => e.op === 'announce' && e.target === 'lab9');
    expect(announced?.actor).toEqual({ kind: 'machine', name: 'lab9' });
  });
});
