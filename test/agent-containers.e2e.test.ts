import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PodmanHarness, startPodman } from '../harness/podman.js';
import { type RunningProgram, startAgent, startBoard } from '../harness/processes.js';
import {
  agentYaml,
  eventually,
  Http,
  OPERATOR,
  REGISTRATION,
  SECRETS,
} from './helpers/agent-fixtures.js';
import { writeBoardConfig } from './helpers/fleet.js';
import { scanForSecretsAfterAll } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

const BOARD_TOKEN = 'containers-e2e-board-token-5b2e8f';

interface Container {
  name: string;
  id: string;
  image: string;
  state: string;
  health: string | null;
  started_at: string | null;
  cpu: number | null;
  mem_used: number | null;
  mem_limit: number | null;
  restarts: number;
}

/**
 * The agent against a real Podman (harness/podman.ts: a private one, its API on a socket in a
 * temporary directory): what it lists of each kind of container, and the start and stop of a
 * published one. The agent reports to a real board every second, which is also how often it
 * reads the containers.
 */
describe('containers: a real agent on a real Podman', () => {
  const dir = tempDir('panoptes-containers-');
  let podman: PodmanHarness;
  let board: RunningProgram;
  let agent: RunningProgram;
  let http: Http;
  const overview = async () => (await http.get('/api/overview', { token: OPERATOR })).json;
  const containers = async (): Promise<Container[] | undefined> => (await overview()).containers;
  const byName = (list: Container[] | undefined, name: string) =>
    list?.find((c) => c.name === name);

  beforeAll(async () => {
    podman = await startPodman();
    await Promise.all([
      podman.run('web', { health: 'true' }),
      podman.run('sick', { health: 'false', healthRetries: 1 }),
      podman.run('failed', { cmd: ['/bin/busybox', 'false'] }),
      podman.run('made', { created: true }),
      podman.run('held'),
      podman.run('busy', { cmd: ['/bin/busybox', 'sh', '-c', 'while :; do :; done'] }),
      podman.run('flappy', { cmd: ['/bin/busybox', 'false'], restart: 'on-failure:2' }),
      podman.run('private'),
    ]);
    await podman.podman(['pause', 'held']);
    await podman.healthcheck('web');
    await podman.healthcheck('sick');
    board = await startBoard(
      writeBoardConfig(dir, 'board', {
        board_token: BOARD_TOKEN,
        registration_token: REGISTRATION,
        machines: [],
      }),
    );
    agent = await startAgent(
      dir.write(
        'agent.yaml',
        agentYaml(
          `data_dir: ${dir.path}/data\ncontainers:\n  socket: ${podman.socket}\n` +
            `report:\n  board: ${board.url}\n  token: ${REGISTRATION}\n  interval: 1\n` +
            'services:\n' +
            '  site:\n    container: web\n    board: [start, stop]\n    stop_grace: 1\n' +
            '  ghost:\n    container: no-such-container\n',
        ),
      ),
    );
    http = new Http(agent.url);
  }, 60_000);

  afterAll(async () => {
    await agent?.stop();
    await board?.stop();
    await podman?.close();
    dir.cleanup();
  });

  it('lists running, exited, created and paused containers with their health and restarts', async () => {
    // Podman restarts `flappy` on its own (no systemd needed) until its policy's 2 are spent.
    await eventually(async () => {
      const c = await podman.inspect('flappy');
      const state = c.State as { Status: string };
      return c.RestartCount === 2 && state.Status === 'exited' ? true : undefined;
    }, 'flappy restarted twice and stopped');
    const list = await eventually(async () => {
      const l = await containers();
      return byName(l, 'flappy')?.restarts === 2 && byName(l, 'busy')?.cpu != null ? l : undefined;
    }, 'two reads of the containers');
    const seen = (name: string) => {
      const c = byName(list, name);
      return c && [c.state, c.health];
    };
    expect(seen('web')).toEqual(['running', 'healthy']);
    expect(seen('sick')).toEqual(['running', 'unhealthy']);
    expect(seen('failed')).toEqual(['exited', null]);
    expect(seen('made')).toEqual(['created', null]);
    expect(seen('held')).toEqual(['paused', null]);
    expect(seen('flappy')).toEqual(['exited', null]);
    const web = byName(list, 'web') as Container;
    const id = String((await podman.inspect('web')).Id);
    expect(web).toMatchObject({
      id: id.slice(0, 12),
      image: 'localhost/panoptes-test:1',
      restarts: 0,
    });
    expect(Date.parse(web.started_at ?? '')).toBeGreaterThan(Date.now() - 10 * 60_000);
    expect(web.mem_used).toBeGreaterThan(0);
    expect(byName(list, 'made')).toMatchObject({ started_at: null, cpu: null, mem_used: null });
    // A shell spinning on one CPU: a share of the machine's CPUs, well above nothing.
    expect(byName(list, 'busy')?.cpu).toBeGreaterThan(0.05);
    expect(byName(list, 'busy')?.mem_used).toBeGreaterThan(0);
    expect(list.map((c) => c.name)).toEqual([...list.map((c) => c.name)].sort());
    const o = await overview();
    expect(o).not.toHaveProperty('containers_error');
    expect(o).not.toHaveProperty('containers_omitted');
  });

  it('the board receives the containers in the reports', async () => {
    const board1 = new Http(board.url);
    const machine = await eventually(async () => {
      const view = (await board1.get('/api/board', { token: BOARD_TOKEN })).json;
      const m = view.machines.find((x: { name: string }) => x.name === 'web1');
      return byName(m?.overview?.containers, 'sick') === undefined ? undefined : m;
    }, 'the containers on the board');
    expect(byName(machine.overview.containers, 'sick')?.health).toBe('unhealthy');
  });

  it('a published container is a service of kind container whose state follows it', async () => {
    const services = (await overview()).services;
    expect(services).toEqual([
      {
        name: 'site',
        kind: 'container',
        container: 'web',
        state: 'running',
        actions: ['start', 'stop'],
        board: ['start', 'stop'],
        busy: false,
        // stop_grace (1 s) and what the engine may take beyond it.
        timeout_s: 11,
      },
      expect.objectContaining({ name: 'ghost', kind: 'container', state: 'unknown', board: [] }),
    ]);
  });

  it('stops and starts a published container through the engine; again is no error', async () => {
    const stopped = await http.post('/api/do/site/stop', { token: OPERATOR });
    expect(stopped.status).toBe(200);
    expect(stopped.json).toEqual({
      what: 'site',
      action: 'stop',
      ok: true,
      exit_code: null,
      output: 'container web stopped',
    });
    expect(((await podman.inspect('web')).State as { Status: string }).Status).toBe('exited');
    // The service's state follows at once, not at the next read.
    expect((await overview()).services[0].state).toBe('stopped');
    const again = await http.post('/api/do/site/stop', { token: OPERATOR });
    expect(again.json).toMatchObject({ ok: true, output: 'container web was not running' });
    const started = await http.post('/api/do/site/start', { token: OPERATOR });
    expect(started.json).toMatchObject({ ok: true, output: 'container web started' });
    expect(((await podman.inspect('web')).State as { Status: string }).Status).toBe('running');
    expect((await overview()).services[0].state).toBe('running');
    const missing = await http.post('/api/do/ghost/start', { token: OPERATOR });
    expect(missing.json).toMatchObject({
      ok: false,
      output: 'no container no-such-container on the engine',
    });
  });

  it('never touches a container that is not published: it is not a service', async () => {
    const unknown = await http.post('/api/do/nothing-here/stop', { token: OPERATOR });
    for (const name of ['private', 'web']) {
      const answer = await http.post(`/api/do/${name}/stop`, { token: OPERATOR });
      expect(answer.status).toBe(404);
      expect(answer.json).toEqual({ detail: `'${name}' is not a service published on web1` });
    }
    expect(unknown.json).toEqual({ detail: "'nothing-here' is not a service published on web1" });
    expect(((await podman.inspect('private')).State as { Status: string }).Status).toBe('running');
    expect(((await podman.inspect('web')).State as { Status: string }).Status).toBe('running');
  });

  scanForSecretsAfterAll(() => ({ secrets: [...SECRETS, BOARD_TOKEN], dirs: [dir.path] }));
});

describe('containers: an engine that is not there or does not answer', () => {
  const dir = tempDir('panoptes-containers-none-');
  const sockets = new Set<Socket>();
  let silent: Server;
  let board: RunningProgram;
  const agents: RunningProgram[] = [];

  beforeAll(async () => {
    // Accepts every connection and never answers: a hung engine.
    silent = createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => silent.listen(`${dir.path}/silent.sock`, resolve));
    board = await startBoard(
      writeBoardConfig(dir, 'board', {
        board_token: BOARD_TOKEN,
        registration_token: REGISTRATION,
        machines: [],
      }),
    );
  });

  afterAll(async () => {
    for (const agent of agents) await agent.stop();
    await board?.stop();
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
    dir.cleanup();
  });

  const agentOn = async (name: string, socket: string) => {
    const agent = await startAgent(
      dir.write(
        `${name}.yaml`,
        agentYaml(
          `data_dir: ${dir.path}/${name}\ncontainers:\n  socket: ${socket}\n` +
            `report:\n  board: ${board.url}\n  token: ${REGISTRATION}\n  interval: 1\n` +
            'services:\n  site:\n    container: web\n    stop_grace: 1\n',
          name,
        ),
      ),
    );
    agents.push(agent);
    return new Http(agent.url);
  };

  it('without the socket there is no containers field, and the service is unknown', async () => {
    const http = await agentOn('bare', `${dir.path}/no-engine.sock`);
    await new Promise((r) => setTimeout(r, 2500));
    const o = (await http.get('/api/overview', { token: OPERATOR })).json;
    expect(o).not.toHaveProperty('containers');
    expect(o).not.toHaveProperty('containers_error');
    expect(o.services[0]).toMatchObject({ name: 'site', kind: 'container', state: 'unknown' });
  });

  it('a silent engine gives containers_error within the read time-out; the overview stays fast', async () => {
    const http = await agentOn('hung', `${dir.path}/silent.sock`);
    const started = Date.now();
    const slowest = { ms: 0 };
    const o = await eventually(async () => {
      const asked = Date.now();
      const answer = (await http.get('/api/overview', { token: OPERATOR })).json;
      slowest.ms = Math.max(slowest.ms, Date.now() - asked);
      return answer.containers_error === undefined ? undefined : answer;
    }, 'containers_error');
    // One read of a 1 s interval gives up after 1 s.
    expect(Date.now() - started).toBeLessThan(5000);
    expect(o.containers_error).toBe('the container engine did not answer within 1000 ms');
    expect(o).not.toHaveProperty('containers');
    expect(o.services[0].state).toBe('unknown');
    expect(sockets.size).toBeGreaterThan(0);
    // The overview never waited for the engine.
    expect(slowest.ms).toBeLessThan(500);
    const action = await http.post('/api/do/site/start', { token: OPERATOR });
    expect(action.json).toMatchObject({ ok: false });
  });

  scanForSecretsAfterAll(() => ({ secrets: [...SECRETS, BOARD_TOKEN], dirs: [dir.path] }));
});
