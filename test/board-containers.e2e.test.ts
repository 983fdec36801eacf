import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PodmanHarness, startPodman } from '../harness/podman.js';
import { type RunningProgram, startAgent, startBoard } from '../harness/processes.js';
import {
  agentYaml,
  BOARD_KEY,
  eventually,
  Http,
  REGISTRATION,
  SECRETS,
} from './helpers/agent-fixtures.js';
import { closedPort, writeBoardConfig } from './helpers/fleet.js';
import { scanForSecretsAfterAll } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

const BOARD_TOKEN = 'containers-board-e2e-token-3f7a1c';

interface Entry {
  op: string;
  target: string;
  outcome: string;
  status: number | null;
  detail: string;
}

/**
 * Start and stop of published containers from the board, with real programs and a real Podman:
 * relayed to a configured machine, and queued for an announced one. The containers run busybox
 * `sleep` as PID 1, which ignores SIGTERM: a stop lasts its whole stop_grace.
 */
describe('the board starts and stops published containers', () => {
  const dir = tempDir('panoptes-board-containers-');
  let podman: PodmanHarness;
  let board: RunningProgram;
  let configured: RunningProgram;
  let announced: RunningProgram;
  let http: Http;
  const state = async (name: string) =>
    ((await podman.inspect(name)).State as { Status: string }).Status;
  const journal = async (): Promise<Entry[]> =>
    (await http.get('/api/journal?limit=50', { token: BOARD_TOKEN })).json.entries;
  const machine = async (name: string) =>
    (await http.get('/api/board', { token: BOARD_TOKEN })).json.machines.find(
      (m: { name: string }) => m.name === name,
    );

  beforeAll(async () => {
    podman = await startPodman();
    await Promise.all(['slow', 'other', 'queued'].map((name) => podman.run(name)));
    configured = await startAgent(
      dir.write(
        'web1.yaml',
        agentYaml(
          `data_dir: ${dir.path}/web1\ncontainers:\n  socket: ${podman.socket}\n` +
            'services:\n  slow:\n    container: slow\n    board: [start, stop]\n    stop_grace: 8\n',
        ),
      ),
    );
    board = await startBoard(
      writeBoardConfig(dir, 'board', {
        board_token: BOARD_TOKEN,
        registration_token: REGISTRATION,
        sweep_interval: 0.5,
        poll_timeout: 3,
        machines: [{ name: 'web1', url: configured.url, key: BOARD_KEY }],
      }),
    );
    http = new Http(board.url);
    // Behind "one-way NAT": its location is a dead port, so the board queues for it.
    announced = await startAgent(
      dir.write(
        'lab3.yaml',
        agentYaml(
          `location: http://127.0.0.1:${await closedPort()}\ndata_dir: ${dir.path}/lab3\n` +
            `containers:\n  socket: ${podman.socket}\n` +
            `report:\n  board: ${board.url}\n  token: ${REGISTRATION}\n  interval: 0.5\n` +
            'services:\n  queued:\n    container: queued\n    board: [stop]\n    stop_grace: 1\n',
          'lab3',
        ),
      ),
    );
  }, 60_000);

  afterAll(async () => {
    await announced?.stop();
    await configured?.stop();
    await board?.stop();
    await podman?.close();
    dir.cleanup();
  });

  it('waits out a slow but healthy stop (stop_grace 8 s, poll_timeout 3 s): done, not a time-out', async () => {
    const service = await eventually(async () => {
      const m = await machine('web1');
      return m?.overview?.services?.find((s: { name: string }) => s.name === 'slow');
    }, "the board's view of the service");
    expect(service).toMatchObject({
      kind: 'container',
      container: 'slow',
      state: 'running',
      timeout_s: 18,
    });
    const asked = Date.now();
    const stopped = await http.post('/api/do/web1/slow/stop', { token: BOARD_TOKEN });
    const took = Date.now() - asked;
    expect(stopped.status).toBe(200);
    expect(stopped.json).toMatchObject({
      what: 'slow',
      action: 'stop',
      ok: true,
      output: 'container slow stopped',
    });
    // It ignored SIGTERM for its whole grace: far longer than poll_timeout.
    expect(took).toBeGreaterThan(7000);
    expect(await state('slow')).toBe('exited');
    const entry = (await journal()).find((e) => e.target === 'web1/slow/stop');
    expect(entry).toMatchObject({ outcome: 'done', status: 200 });

    const started = await http.post('/api/do/web1/slow/start', { token: BOARD_TOKEN });
    expect(started.json).toMatchObject({ ok: true, output: 'container slow started' });
    expect(await state('slow')).toBe('running');
    await eventually(async () => {
      const m = await machine('web1');
      const s = m?.overview?.services?.find((x: { name: string }) => x.name === 'slow');
      return s?.state === 'running' ? true : undefined;
    }, 'the service running again on the board');
  }, 30_000);

  it('a container that is not published is never touched: the machine answers 404', async () => {
    const answer = await http.post('/api/do/web1/other/stop', { token: BOARD_TOKEN });
    expect(answer.status).toBe(404);
    expect(answer.json).toEqual({ detail: "'other' is not a service published on web1" });
    expect(await state('other')).toBe('running');
  });

  it('an announced machine runs a queued stop at its next report; the result is journaled', async () => {
    await eventually(
      async () => ((await machine('lab3'))?.state === 'up' ? true : undefined),
      'lab3 up',
    );
    const queued = await http.post('/api/do/lab3/queued/stop', { token: BOARD_TOKEN });
    expect(queued.json).toMatchObject({
      queued: true,
      name: 'lab3',
      what: 'queued',
      action: 'stop',
    });
    // The board key may only stop it: a queued start comes back refused.
    await http.post('/api/do/lab3/queued/start', { token: BOARD_TOKEN });
    const entries = await eventually(async () => {
      const all = await journal();
      const targets = all.map((e) => `${e.target} ${e.outcome} ${e.status}`);
      return targets.includes('lab3/queued/stop done 200') &&
        targets.includes('lab3/queued/start refused 403')
        ? all
        : undefined;
    }, 'both results in the journal');
    expect(
      entries.find((e) => e.target === 'lab3/queued/stop' && e.outcome === 'done')?.detail,
    ).toContain(queued.json.id);
    expect(await state('queued')).toBe('exited');
  });

  scanForSecretsAfterAll(() => ({ secrets: [...SECRETS, BOARD_TOKEN], dirs: [dir.path] }));
});
