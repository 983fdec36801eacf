import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { type RunningProgram, startAgent, startBoard } from '../harness/processes.js';
import {
  eventually,
  Recorder,
  reloadRefusalsLogged,
  writeAgentConfig,
  writeBoardConfig,
} from './helpers/fleet.js';
import { recordMessages, scanForSecretsAfterAll } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

const TOKEN_1 = 'reload-board-token-1-0123456789';
const TOKEN_2 = 'reload-board-token-2-0123456789';
const REGISTRATION = 'reload-registration-0123456789';
const AGENT_TOKEN = 'reload-agent-token-0123456789';
const KEY = 'reload-board-key-0123456789ab';
const SECRETS = [TOKEN_1, TOKEN_2, REGISTRATION, AGENT_TOKEN, KEY];

interface Entry {
  op: string;
  outcome: string;
  target: string;
  detail: string;
}

describe('board reload: SIGHUP and a change of board.yaml, without a restart', () => {
  const dir = tempDir('panoptes-reload-');
  const http = new Recorder();
  const live: string[] = [];
  let agent: RunningProgram;
  let board: RunningProgram;
  let socket: WebSocket;
  let hole: { url: string; relayed: Promise<void>; close(): Promise<void> };
  let configDir: string;
  let base: Record<string, unknown>;

  beforeAll(async () => {
    hole = await silentAgent();
    agent = await startAgent(
      writeAgentConfig(dir, 'web1', { name: 'web1', token: AGENT_TOKEN, board_key: KEY }),
    );
    base = {
      board_token: TOKEN_1,
      sweep_interval: 0.3,
      poll_timeout: 3,
      machines: [
        { name: 'web1', url: agent.url, key: KEY },
        { name: 'silent', url: hole.url, key: KEY },
      ],
    };
    configDir = writeBoardConfig(dir, 'board', base);
    board = await startBoard(configDir);
    socket = await openLive(TOKEN_1);
  });

  const openLive = async (token: string): Promise<WebSocket> => {
    const opened = new WebSocket(`${board.url.replace('http', 'ws')}/api/live?token=${token}`);
    recordMessages(opened, live);
    await new Promise((resolve, reject) => {
      opened.once('open', resolve);
      opened.once('error', reject);
    });
    return opened;
  };

  afterAll(async () => {
    socket?.close();
    await board?.stop();
    await agent?.stop();
    await hole?.close();
    dir.cleanup();
  });

  const get = (path: string, token: string) => http.call(`${board.url}${path}`, { token });
  const reloads = async (token: string): Promise<Entry[]> => {
    const answer = await get('/api/journal?limit=1000', token);
    return (answer.json as { entries: Entry[] }).entries.filter((e) => e.op === 'reload');
  };
  const names = async (token: string): Promise<string[]> =>
    ((await get('/api/board', token)).json as { machines: { name: string }[] }).machines.map(
      (m) => m.name,
    );
  const hup = () => process.kill(board.pid, 'SIGHUP');

  it('SIGHUP with a good file: machines added, tokens replaced, requests kept, old-token feeds closed', async () => {
    const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
    // A relay in flight (to a machine that never answers) when the reload happens.
    const inFlight = http.call(`${board.url}/api/do/silent/backup/start`, {
      method: 'POST',
      token: TOKEN_1,
    });
    writeBoardConfig(dir, 'board', {
      ...base,
      board_token: TOKEN_2,
      registration_token: REGISTRATION,
      machines: [
        { name: 'web1', url: agent.url, key: KEY },
        { name: 'silent', url: hole.url, key: KEY },
        { name: 'web2', url: agent.url, key: KEY },
      ],
    });
    await hole.relayed;
    hup();
    const done = await eventually(
      async () => (await reloads(TOKEN_2).catch(() => [])).find((e) => e.outcome === 'done'),
      'a reload entry in the journal',
    );
    expect(done.detail).toContain('machines added: web2');
    expect(done.detail).toContain('board_token');
    expect(done.detail).toContain('registration_token');
    expect(done.target).toBe(`${configDir}/board.yaml`);
    expect((await get('/api/board', TOKEN_1)).status).toBe(401);
    expect(await names(TOKEN_2)).toEqual(['silent', 'web1', 'web2']);
    // The feed opened with the replaced token is closed; one opened with the new token hears
    // of the new machine.
    expect(await closed).toBe(1008);
    socket = await openLive(TOKEN_2);
    await eventually(
      async () =>
        live.some((m) => m.includes('"name":"web2"') && m.includes('"up"')) ? true : undefined,
      'web2 up on the live feed',
    );
    // The relay begun before the reload ends with its own answer (a time-out), not a reset.
    expect((await inFlight).status).toBe(504);
    // The registration token now opens reports.
    const report = await http.call(`${board.url}/api/report`, {
      method: 'POST',
      token: REGISTRATION,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'lab1', location: 'http://127.0.0.1:9/' }),
    });
    expect(report.status).toBe(200);
  });

  it('keeps queued actions across a reload', async () => {
    const before = (await reloads(TOKEN_2)).length;
    const queued = await http.call(`${board.url}/api/do/lab1/backup/start`, {
      method: 'POST',
      token: TOKEN_2,
    });
    expect(queued.json).toMatchObject({ queued: true });
    hup();
    await eventually(
      async () => ((await reloads(TOKEN_2)).length > before ? true : undefined),
      'a second reload entry',
    );
    const lab1 = (
      (await get('/api/board', TOKEN_2)).json as {
        machines: { name: string; queued: number }[];
      }
    ).machines.find((m) => m.name === 'lab1');
    expect(lab1?.queued).toBe(1);
    // A reload that keeps the token keeps the feeds it opened.
    expect(socket.readyState).toBe(WebSocket.OPEN);
  });

  it('SIGHUP with a bad file keeps the running config and names every problem with file and field', async () => {
    const before = (await reloads(TOKEN_2)).length;
    writeBoardConfig(dir, 'board', {
      ...base,
      board_token: 'short',
      sweep_intervall: 2,
      machines: [{ name: 'web1', url: 'not a url', key: KEY }],
    });
    hup();
    const failed = await eventually(async () => {
      const all = await reloads(TOKEN_2);
      return all.length > before ? all[0] : undefined;
    }, 'a failed reload entry');
    expect(failed.outcome).toBe('failed');
    expect(failed.detail).toContain('board_token: must be at least 16 characters long');
    expect(failed.detail).toContain('sweep_intervall: unknown key');
    expect(failed.detail).toContain('machines[0].url');
    const file = `${configDir}/board.yaml`;
    await reloadRefusalsLogged(board.output, file, [
      'board_token',
      'sweep_intervall',
      'machines[0].url',
    ]);
    // Still running, with the config it had: the same token and machines.
    expect(await names(TOKEN_2)).toEqual(['lab1', 'silent', 'web1', 'web2']);
  });

  it('a change of the file on disk reloads without a signal; data_dir and the caps need a restart', async () => {
    const before = (await reloads(TOKEN_2)).length;
    writeBoardConfig(dir, 'board', {
      ...base,
      board_token: TOKEN_2,
      registration_token: REGISTRATION,
      data_dir: 'elsewhere',
      max_announced: 5,
      machines: [{ name: 'web1', url: agent.url, key: KEY }],
    });
    const entry = await eventually(async () => {
      const all = await reloads(TOKEN_2);
      return all.length > before ? all[0] : undefined;
    }, 'a reload after the file changed');
    expect(entry.outcome).toBe('done');
    expect(entry.detail).toMatch(/^file change: /);
    expect(entry.detail).toContain('machines removed: silent, web2');
    expect(entry.detail).toContain('needs a restart: data_dir, max_announced');
    expect(
      board.output.some((l) =>
        l.includes('data_dir changed in the config; it takes effect after a restart'),
      ),
    ).toBe(true);
    expect(await names(TOKEN_2)).toEqual(['lab1', 'web1']);
    expect(live.some((m) => m === '{"type":"removed","name":"web2"}')).toBe(true);
    // Still listening where it was.
    expect((await http.call(`${board.url}/api/health`)).status).toBe(200);
  });

  scanForSecretsAfterAll(() => ({
    secrets: SECRETS,
    recorders: [http],
    texts: live,
    dirs: [dir.path],
  }));
});

/** An agent that accepts connections and never answers; `relayed` resolves once a relay (a POST) arrived. */
async function silentAgent(): Promise<{
  url: string;
  relayed: Promise<void>;
  close(): Promise<void>;
}> {
  const sockets = new Set<Socket>();
  let seen: () => void = () => undefined;
  const relayed = new Promise<void>((resolve) => {
    seen = resolve;
  });
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('data', (data) => {
      if (data.toString('latin1').startsWith('POST /api/do/')) seen();
    });
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    relayed,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
