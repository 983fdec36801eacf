import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { type RunningProgram, startAgent } from '../harness/processes.js';
import {
  agentYaml,
  eventually,
  expectNoSecrets,
  Http,
  OPERATOR,
  REGISTRATION,
  SECRETS,
} from './helpers/agent-fixtures.js';
import { scanForSecretsAfterAll } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

interface Handed {
  id: string;
  what: string;
  action: 'start' | 'stop';
  requested_at: string;
}

interface Received {
  authorization: string | undefined;
  // biome-ignore lint/suspicious/noExplicitAny: reports are read loosely; the assertions check them
  body: any;
}

/**
 * A board as DESIGN.md has it, reduced to POST /api/report: it keeps each queued action until a
 * report carries its result. `forgetful` hands actions again even after their result arrived,
 * as a board that lost its memory would.
 */
class FakeBoard {
  readonly reports: Received[] = [];
  readonly queue = new Map<string, Handed>();
  readonly results = new Map<string, { status: number; body: unknown }>();
  forgetful = false;
  private server: Server | null = null;

  async listen(port = 0): Promise<string> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        this.reports.push({ authorization: req.headers.authorization, body });
        if (req.headers.authorization !== `Bearer ${REGISTRATION}`) {
          res.writeHead(401).end('{"detail":"Not authenticated"}');
          return;
        }
        for (const r of body.results ?? []) {
          this.results.set(r.id, { status: r.status, body: r.body });
          if (!this.forgetful) this.queue.delete(r.id);
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ ok: true, actions: [...this.queue.values()] }));
      });
    });
    server.listen(port, '127.0.0.1');
    await once(server, 'listening');
    this.server = server;
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  enqueue(id: string, what: string, action: 'start' | 'stop' = 'start'): void {
    this.queue.set(id, { id, what, action, requested_at: new Date().toISOString() });
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    this.server?.close();
    this.server = null;
  }
}

const dir = tempDir('panoptes-agent-report-');
const ranFile = `${dir.path}/ran.txt`;
const boards: FakeBoard[] = [];
const agents: RunningProgram[] = [];
const seen: string[] = [];

afterAll(async () => {
  for (const a of agents) await a.stop();
  for (const b of boards) await b.close();
  dir.cleanup();
});

function config(board: string, name = 'lab3'): string {
  return dir.write(
    `${name}.yaml`,
    agentYaml(
      `data_dir: ${dir.path}/${name}-data\n` +
        `report:\n  board: ${board}\n  token: ${REGISTRATION}\n  interval: 0.2\n` +
        'services:\n' +
        `  job:\n    start: [sh, -c, "echo ran >> ${ranFile}; echo job started"]\n    board: [start]\n` +
        '  private:\n    start: ["true"]\n',
      name,
    ),
  );
}

async function start(file: string): Promise<RunningProgram> {
  const agent = await startAgent(file);
  agents.push(agent);
  return agent;
}

function ranLines(): number {
  try {
    return readFileSync(ranFile, 'utf8')
      .split('\n')
      .filter((l) => l !== '').length;
  } catch {
    return 0;
  }
}

describe('agent: announce mode', () => {
  const board = new FakeBoard();
  boards.push(board);
  let agent: RunningProgram;
  const file = () => config(boardUrl);
  let boardUrl = '';

  it('reports its overview, name and location with the registration token, every interval', async () => {
    boardUrl = await board.listen();
    agent = await start(file());
    await eventually(async () => (board.reports.length >= 3 ? true : undefined), 'three reports');
    const report = board.reports[0];
    expect(report?.authorization).toBe(`Bearer ${REGISTRATION}`);
    expect(report?.body).toMatchObject({ name: 'lab3', location: agent.url, version: '0.1.0' });
    expect(report?.body.services.map((s: { name: string }) => s.name)).toEqual(['job', 'private']);
    expect(report?.body.cpus).toBeGreaterThan(0);
    expect(report?.body).not.toHaveProperty('results');
  });

  it('runs a handed action once under the board-key policy and reports the results', async () => {
    board.enqueue('a-1', 'job');
    board.enqueue('a-2', 'private');
    board.enqueue('a-3', 'nowhere');
    await eventually(async () => (board.queue.size === 0 ? true : undefined), 'results');
    expect(board.results.get('a-1')).toEqual({
      status: 200,
      body: { what: 'job', action: 'start', ok: true, exit_code: 0, output: 'job started\n' },
    });
    expect(board.results.get('a-2')).toEqual({
      status: 403,
      body: { detail: "the board may not start 'private' on lab3" },
    });
    expect(board.results.get('a-3')).toEqual({
      status: 404,
      body: { detail: "'nowhere' is not a service published on lab3" },
    });
    expect(ranLines()).toBe(1);
  });

  it('never runs a re-delivered id again, also after a restart; it re-sends the result', async () => {
    board.forgetful = true;
    board.results.clear();
    board.enqueue('a-1', 'job');
    await eventually(async () => (board.results.has('a-1') ? true : undefined), 're-sent');
    expect(board.results.get('a-1')?.status).toBe(200);
    expect(ranLines()).toBe(1);

    expect(await agent.stop()).toEqual({ code: 0, signal: null });
    board.results.clear();
    const reports = board.reports.length;
    agent = await start(file());
    await eventually(
      async () => (board.results.has('a-1') && board.reports.length > reports ? true : undefined),
      'the result after the restart',
    );
    expect(board.results.get('a-1')).toEqual({
      status: 200,
      body: { what: 'job', action: 'start', ok: true, exit_code: 0, output: 'job started\n' },
    });
    expect(ranLines()).toBe(1);
    board.forgetful = false;
    board.queue.clear();
    seen.push(...agent.output);
  });
});

describe('agent: announce mode with the board away', () => {
  it('keeps serving, backs off, and reports once the board is back', async () => {
    // A port nothing listens on yet: the board comes up there later.
    const probe = new FakeBoard();
    const url = await probe.listen();
    await probe.close();
    const agent = await start(config(url, 'nat1'));
    await eventually(
      async () =>
        agent.output.some((l) => l.includes('report failed; backing off')) ? true : undefined,
      'the first failure',
    );
    const http = new Http(agent.url);
    const overview = await http.get('/api/overview', { token: OPERATOR });
    expect(overview.status).toBe(200);
    expect(overview.json.name).toBe('nat1');

    const board = new FakeBoard();
    boards.push(board);
    await board.listen(Number(new URL(url).port));
    board.enqueue('n-1', 'job');
    await eventually(async () => (board.results.has('n-1') ? true : undefined), 'a report', 600);
    expect(board.results.get('n-1')?.status).toBe(200);
    await eventually(
      async () =>
        agent.output.some((l) => l.includes('board reachable again')) ? true : undefined,
      'the recovery log line',
    );
    seen.push(...http.seen, ...agent.output);
  });

  it('no token, key or registration token in any log line or answer', () => {
    for (const a of agents) seen.push(...a.output);
    expectNoSecrets(seen);
  });
});

// Every answer, message, log line and data file of this file's tests, searched for every secret.
scanForSecretsAfterAll(() => ({ secrets: SECRETS, dirs: [dir.path] }));
