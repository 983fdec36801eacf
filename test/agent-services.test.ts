import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningProgram, startAgent } from '../harness/processes.js';
import {
  agentYaml,
  BOARD_KEY,
  eventually,
  expectNoSecrets,
  Http,
  OPERATOR,
  SECRETS,
} from './helpers/agent-fixtures.js';
import { scanForSecretsAfterAll } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

const dir = tempDir('panoptes-agent-services-');
const flag = `${dir.path}/flag`;
const NODE = JSON.stringify(process.execPath);
let agent: RunningProgram;
let http: Http;

const SERVICES = `
services:
  shout:
    start: [sh, -c, "echo out; echo err >&2; exit 3"]
    stop: ["true"]
    board: [start]
  literal:
    start: [echo, "$(id); rm -rf ${dir.path}; \`whoami\` > ${dir.path}/pwned"]
  big:
    start: [${NODE}, -e, "process.stdout.write('a'.repeat(10000) + 'END')"]
  slow:
    start: [sleep, "30"]
    stop: ["true"]
    timeout: 0.5
  busy:
    start: [sleep, "3"]
    stop: ["true"]
  flagged:
    start: [touch, ${flag}]
    stop: [rm, -f, ${flag}]
    status: [test, -f, ${flag}]
    board: [start, stop]
  hanging:
    start: ["true"]
    status: [sh, -c, "echo $$ >> ${dir.path}/hanging.pids; exec sleep 30"]
  here:
    start: [pwd]
    cwd: ${dir.path}
  env:
    start: [env]
  worker:
    run: [${NODE}, -e, "console.log('serving'); require('fs').writeFileSync('${dir.path}/worker-up', ''); setInterval(() => {}, 1000)"]
    board: [start]
  stubborn:
    run: [${NODE}, -e, "process.on('SIGTERM', () => console.log('ignoring TERM')); require('fs').writeFileSync('${dir.path}/stubborn-up', ''); setInterval(() => {}, 1000)"]
    stop_grace: 1
  crasher:
    run: [sh, -c, "echo bye; exit 7"]
`;

beforeAll(async () => {
  const config = dir.write('agent.yaml', agentYaml(`data_dir: ${dir.path}/data\n${SERVICES}`));
  // The token comes from the environment here, to prove the commands do not inherit it.
  agent = await startAgent(config, { env: { PANOPTES_AGENT_TOKEN: OPERATOR } });
  http = new Http(agent.url);
});

afterAll(async () => {
  await agent?.stop();
  dir.cleanup();
});

async function act(what: string, action: string, token = OPERATOR) {
  return http.post(`/api/do/${what}/${action}`, { token });
}

async function service(name: string) {
  const r = await http.get('/api/overview', { token: OPERATOR });
  return r.json.services.find((s: { name: string }) => s.name === name);
}

describe('agent: command services', () => {
  it('runs the argv and answers 200 with ok false, the exit code and the output', async () => {
    const r = await act('shout', 'start');
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ what: 'shout', action: 'start', ok: false, exit_code: 3 });
    expect(r.json.output).toContain('out\n');
    expect(r.json.output).toContain('err\n');
  });

  it('never uses a shell: the argv is passed as written', async () => {
    const r = await act('literal', 'start');
    expect(r.json.ok).toBe(true);
    expect(r.json.output).toContain('$(id); rm -rf');
    expect(existsSync(`${dir.path}/pwned`)).toBe(false);
    expect(existsSync(dir.path)).toBe(true);
  });

  it('answers the last 4 KiB of the output', async () => {
    const r = await act('big', 'start');
    expect(r.json.ok).toBe(true);
    expect(r.json.output).toHaveLength(4096);
    expect(r.json.output.endsWith('aaaEND')).toBe(true);
  });

  it('kills a command past its time-out and says so', async () => {
    const r = await act('slow', 'start');
    expect(r.json).toMatchObject({ ok: false, exit_code: null });
    expect(r.json.output).toContain('[timed out after 0.5 s; killed by SIGTERM]');
  });

  it('runs in the configured directory, without the agent token in its environment', async () => {
    expect((await act('here', 'start')).json.output.trim()).toBe(dir.path);
    const env = await act('env', 'start');
    expect(env.json.ok).toBe(true);
    expect(env.json.output).toContain('PATH=');
    expect(env.json.output).not.toContain(OPERATOR);
  });

  it('409 for a second action while one runs on the same service', async () => {
    const first = act('busy', 'start');
    await eventually(async () => ((await service('busy')).busy ? true : undefined), 'busy');
    const second = await act('busy', 'stop');
    expect(second.status).toBe(409);
    expect(second.json.detail).toMatch(/busy/);
    expect((await first).json.ok).toBe(true);
    expect((await act('busy', 'stop')).status).toBe(200);
  });

  it('the state follows the status command: running after start, stopped after stop', async () => {
    expect((await act('flagged', 'start', BOARD_KEY)).json.ok).toBe(true);
    await eventually(
      async () => ((await service('flagged')).state === 'running' ? true : undefined),
      'running',
    );
    expect((await act('flagged', 'stop', BOARD_KEY)).json.ok).toBe(true);
    await eventually(
      async () => ((await service('flagged')).state === 'stopped' ? true : undefined),
      'stopped',
    );
  });

  it('a hanging status command does not hold up the overview: its state is unknown', async () => {
    // `sleep 30` never answers within the 2 s status time-out. Many overviews in a row all answer.
    for (let i = 0; i < 10; i += 1) {
      const r = await http.get('/api/overview', { token: OPERATOR });
      expect(r.status).toBe(200);
      expect(r.json.services.find((s: { name: string }) => s.name === 'hanging').state).toBe(
        'unknown',
      );
    }
  });
});

describe('agent: who may do what', () => {
  it('404 naming the machine for a name that is not published', async () => {
    const r = await act('nope', 'start');
    expect(r.status).toBe(404);
    expect(r.json).toEqual({ detail: "'nope' is not a service published on web1" });
  });

  it('404 for an action the service does not publish', async () => {
    const r = await act('literal', 'stop');
    expect(r.status).toBe(404);
    expect(r.json.detail).toMatch(/does not publish stop/);
  });

  it("403 for the board key outside the service's board list; the token may", async () => {
    const r = await act('shout', 'stop', BOARD_KEY);
    expect(r.status).toBe(403);
    expect(r.json).toEqual({ detail: "the board may not stop 'shout' on web1" });
    expect((await act('here', 'start', BOARD_KEY)).status).toBe(403);
    expect((await act('shout', 'stop')).status).toBe(200);
    expect((await act('shout', 'start', BOARD_KEY)).status).toBe(200);
  });
});

describe('agent: process services', () => {
  it('start runs the child, a second start is 409, stop ends it and reports how', async () => {
    const started = await act('worker', 'start', BOARD_KEY);
    expect(started.json).toMatchObject({ ok: true, exit_code: null });
    const pid = Number(/pid (\d+)/.exec(started.json.output)?.[1]);
    expect(pid).toBeGreaterThan(0);
    expect(alive(pid)).toBe(true);
    await eventually(async () => (existsSync(`${dir.path}/worker-up`) ? true : undefined), 'up');
    expect((await service('worker')).state).toBe('running');
    const again = await act('worker', 'start');
    expect(again.status).toBe(409);
    expect(again.json).toEqual({ detail: "'worker' is already running" });
    expect((await act('worker', 'stop', BOARD_KEY)).status).toBe(403);
    const stopped = await act('worker', 'stop');
    expect(stopped.json).toMatchObject({ ok: true, exit_code: null });
    expect(stopped.json.output).toContain('serving');
    expect(stopped.json.output).toContain('[stopped: killed by SIGTERM]');
    expect(alive(pid)).toBe(false);
    expect(await service('worker')).toMatchObject({
      state: 'stopped',
      last_exit: { code: null, signal: 'SIGTERM' },
    });
  });

  it('stop when not running is an ok no-op', async () => {
    const r = await act('worker', 'stop');
    expect(r.json).toMatchObject({ ok: true, exit_code: null });
    expect(r.json.output).toMatch(/^not running/);
  });

  it('SIGKILL after the grace period for a child that ignores SIGTERM', async () => {
    const started = await act('stubborn', 'start');
    const pid = Number(/pid (\d+)/.exec(started.json.output)?.[1]);
    // The child has installed its SIGTERM handler once it wrote its file.
    await eventually(async () => (existsSync(`${dir.path}/stubborn-up`) ? true : undefined), 'up');
    const stopped = await act('stubborn', 'stop');
    expect(stopped.json.output).toContain('did not stop within 1 s of SIGTERM; killed by SIGKILL');
    expect(alive(pid)).toBe(false);
  });

  it('a child that exits on its own: stopped, with its exit code, and not restarted', async () => {
    expect((await act('crasher', 'start')).json.ok).toBe(true);
    const view = await eventually(async () => {
      const s = await service('crasher');
      return s.state === 'stopped' ? s : undefined;
    }, 'the crasher to exit');
    expect(view.last_exit).toMatchObject({ code: 7, signal: null });
    await new Promise((r) => setTimeout(r, 500));
    expect((await service('crasher')).state).toBe('stopped');
    expect((await act('crasher', 'stop')).json.output).toContain('exit code 7');
  });

  it('SIGTERM to the agent stops its process services before it exits 0', async () => {
    const started = await act('worker', 'start');
    const pid = Number(/pid (\d+)/.exec(started.json.output)?.[1]);
    expect(alive(pid)).toBe(true);
    // A status check of `hanging` is running now (a new one starts every 2 s or so).
    await http.get('/api/overview', { token: OPERATOR });
    const checks = await eventually(async () => {
      // Each read may start a new check once the last one ended (time-out 2 s): under load the
      // first one may already be gone when we look.
      await http.get('/api/overview', { token: OPERATOR });
      const pids = readFileSync(`${dir.path}/hanging.pids`, 'utf8').trim().split('\n').map(Number);
      return pids.some(alive) ? pids : undefined;
    }, 'a running status check');
    expectNoSecrets([...http.seen, ...agent.output]);
    const exit = await agent.stop(20_000);
    expect(exit).toEqual({ code: 0, signal: null });
    expect(alive(pid)).toBe(false);
    // Nothing the agent started outlives it, status checks included.
    // (eventually: a killed child may be a zombie for a moment until init reaps it)
    await eventually(async () => (checks.some(alive) ? undefined : true), 'the checks gone', 100);
  });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

// Every answer, message, log line and data file of this file's tests, searched for every secret.
scanForSecretsAfterAll(() => ({ secrets: SECRETS, dirs: [dir.path] }));
