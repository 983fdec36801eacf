import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningProgram, startBoard } from '../harness/processes.js';
import { type Received, Receiver } from '../src/board/notify/channels/receivers.js';
import { reportBody } from './helpers/browser.js';
import { eventually, Recorder, writeBoardConfig } from './helpers/fleet.js';
import { tempDir } from './helpers/tmp.js';

const TOKEN = 'check-state-board-token-5e1b9c';
const REG = 'check-state-registration-7d42af';

interface CheckEvent {
  event: string;
  check?: string;
  state?: string;
  previous?: string;
  runners?: { machine: string; detail: string }[];
}

/** The checks' state from runners' reports, the `check` event through the rules, and its views. */
describe('check state on a real board: quorum, thresholds, alerts', () => {
  const dir = tempDir('panoptes-check-state-');
  const hook = new Receiver();
  const chat = new Receiver();
  const http = new Recorder();
  let board: RunningProgram;
  let tick = Date.now();

  const call = (path: string, init: RequestInit = {}) =>
    http.call(`${board.url}${path}`, {
      ...init,
      token: TOKEN,
      headers: { 'content-type': 'application/json' },
    });
  /** One report of `name` carrying one new result of each check (as an announced agent sends it). */
  const report = (
    name: string,
    results: Record<string, boolean>,
    more: Record<string, unknown> = {},
  ) => {
    tick += 1000;
    const at = new Date(tick).toISOString();
    const body = {
      ...reportBody(name, `http://${name}.lab:8701`, []),
      checks_version: '',
      checks: Object.entries(results).map(([check, ok]) => ({
        name: check,
        ok,
        ms: ok ? 21 : 3000,
        detail: ok ? '' : `<!channel> refused *${name}*`,
        at,
        ...more,
      })),
    };
    return http.call(`${board.url}/api/report`, {
      method: 'POST',
      token: REG,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  };
  const checkEvents = () =>
    hook.requests.flatMap((r: Received) => (JSON.parse(r.body) as { events: CheckEvent[] }).events);
  const listChecks = async () =>
    (await call('/api/checks')).json as { name: string; state: string; since: string | null }[];

  beforeAll(async () => {
    await hook.start();
    await chat.start();
    const check = (name: string, target: string, labels: Record<string, string>) => ({
      name,
      labels,
      type: 'tcp',
      target,
      interval: 5,
      runners: { selector: 'role=probe', quorum: 2 },
      failure_threshold: 2,
    });
    board = await startBoard(
      writeBoardConfig(dir, 'b', {
        board_token: TOKEN,
        registration_token: REG,
        sweep_interval: 0.2,
        stale_after: 600,
        checks: [
          check('api-x', 'api.example:443', { team: 'api' }),
          check('db', 'db.example:5432', {}),
        ],
        notify: {
          timeout: 2,
          channels: [
            { name: 'hook', url: `http://${hook.host}/panoptes` },
            { name: 'chat', url: `slack://aaa/bbb/ccc?host=${chat.host}&scheme=http` },
          ],
          rules: [{ events: ['check'], checks: ['api-*'], channels: ['hook', 'chat'] }],
        },
      }),
    );
    for (const name of ['p1', 'p2']) {
      expect((await report(name, {})).status).toBe(200);
      const labelled = await call(`/api/machines/${name}/labels`, {
        method: 'PUT',
        body: JSON.stringify({
          labels: name === 'p1' ? { role: 'probe', team: 'api' } : { role: 'probe' },
        }),
      });
      expect(labelled.status).toBe(200);
    }
  });
  afterAll(async () => {
    await board?.stop();
    await hook.stop();
    await chat.stop();
    dir.cleanup();
  });

  it('goes down after failure_threshold failures from quorum runners, then up; a checks: glob rule fires for api-x, not db; every channel, journaled', async () => {
    const rules = ((await call('/api/notify')).json as { rules: Record<string, unknown>[] }).rules;
    expect(rules).toMatchObject([{ events: ['check'], checks: ['api-*'] }]);
    const both = { 'api-x': false, db: false };
    expect((await report('p1', both)).status).toBe(200);
    expect((await report('p2', both)).status).toBe(200);
    // The same overview again (a poll repeating a report) counts once.
    expect((await report('p1', both)).status).toBe(200);
    expect((await listChecks()).map((c) => c.state)).toEqual(['unknown', 'unknown']);
    expect((await report('p2', both)).status).toBe(200);
    const downs = await eventually(async () => {
      const found = checkEvents().filter((e) => e.event === 'check' && e.state === 'down');
      return found.length > 0 ? found : undefined;
    }, 'the down of api-x sent');
    expect(downs).toEqual([
      expect.objectContaining({
        event: 'check',
        machine: '',
        check: 'api-x',
        state: 'down',
        previous: 'unknown',
        runners: [
          { machine: 'p1', detail: '<!channel> refused *p1*' },
          { machine: 'p2', detail: '<!channel> refused *p2*' },
        ],
      }),
    ]);
    const states = await listChecks();
    expect(states.map((c) => [c.name, c.state])).toEqual([
      ['api-x', 'down'],
      ['db', 'down'],
    ]);
    expect(Date.parse(states[0]?.since ?? '')).toBeGreaterThan(0);
    // The chat text names the check, its state and the runners, their detail escaped (mrkdwn).
    await eventually(async () => (chat.requests.length > 0 ? true : undefined), 'chat message');
    const text = (JSON.parse(chat.requests[0]?.body ?? '{}') as { text: string }).text;
    expect(text).toContain('check api-x is down');
    expect(text).toContain('p1: &lt;!channel&gt; refused *p1*');
    expect(text).not.toContain('<!channel>');

    const expires = new Date(Date.now() + 10 * 86_400_000).toISOString();
    const up = await report('p1', { 'api-x': true, db: true }, { cert_expires_at: expires });
    expect(up.status).toBe(200);
    const ups = await eventually(async () => {
      const found = checkEvents().filter((e) => e.state === 'up');
      return found.length > 0 ? found : undefined;
    }, 'the up of api-x sent');
    expect(ups).toEqual([
      expect.objectContaining({ check: 'api-x', state: 'up', previous: 'down' }),
    ]);
    expect(checkEvents().some((e) => e.check === 'db')).toBe(false);
    const journal = async () =>
      ((await call('/api/journal?limit=200')).json as { entries: Record<string, unknown>[] })
        .entries;
    await eventually(async () => {
      const sent = (await journal()).filter(
        (e) => e.op === 'notify' && e.target === 'hook' && e.outcome === 'delivered',
      );
      return sent.length >= 2 ? sent : undefined;
    }, 'both deliveries journaled');
    const details = (await journal()).map((e) => String(e.detail));
    expect(details.some((d) => d.startsWith('1 check (api-x) delivered'))).toBe(true);
  });

  it('GET /api/checks, /metrics and MCP list_checks show the state, each scoped to what the caller sees', async () => {
    const rows = (await call('/api/checks')).json as Record<string, unknown>[];
    expect(rows).toEqual([
      expect.objectContaining({ name: 'api-x', state: 'up', uptime_24h: null }),
      expect.objectContaining({ name: 'db', state: 'up', uptime_24h: null }),
    ]);
    const metrics = (await call('/metrics')).text;
    expect(metrics).toContain('panoptes_check_up{check="api-x"} 1\n');
    expect(metrics).toContain('panoptes_check_up{check="db"} 1\n');
    expect(metrics).toContain('panoptes_check_duration_seconds{check="api-x",runner="p1"} 0.021\n');
    expect(metrics).toContain('panoptes_check_duration_seconds{check="api-x",runner="p2"} 3\n');
    const expiry = /panoptes_check_cert_expiry_seconds\{check="api-x"\} (\d+)/.exec(metrics);
    expect(Number(expiry?.[1])).toBeGreaterThan(10 * 86_400 - 120);
    expect(Number(expiry?.[1])).toBeLessThanOrEqual(10 * 86_400);

    // A viewer over team=api: the check labelled so, and of its runners the machine it sees.
    const made = await call('/api/tokens', {
      method: 'POST',
      body: JSON.stringify({ name: 'api-team', role: 'viewer', selector: 'team=api' }),
    });
    expect(made.status).toBe(201);
    const scoped = (made.json as { token: string }).token;
    const asScoped = (path: string) => http.call(`${board.url}${path}`, { token: scoped });
    const seen = (await asScoped('/api/checks')).json as {
      name: string;
      runners: { machine: string }[];
    }[];
    expect(seen.map((c) => [c.name, c.runners.map((r) => r.machine)])).toEqual([['api-x', ['p1']]]);
    const scopedMetrics = (await asScoped('/metrics')).text;
    expect(scopedMetrics).toContain('panoptes_check_up{check="api-x"} 1');
    expect(scopedMetrics).toContain('runner="p1"');
    expect(scopedMetrics).not.toContain('check="db"');
    expect(scopedMetrics).not.toContain('runner="p2"');

    const client = new Client({ name: 'check-state-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${board.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${scoped}` } },
      }),
    );
    try {
      const tools = (await client.listTools()).tools.map((t) => t.name);
      expect(tools).toContain('list_checks');
      const listed = (await client.callTool({ name: 'list_checks', arguments: {} })) as unknown as {
        structuredContent: { checks: unknown[] };
      };
      expect(listed.structuredContent.checks).toEqual(seen);
    } finally {
      await client.close();
    }
  });
});
