import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { Value } from 'typebox/value';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningProgram, startAgent } from '../harness/processes.js';
import { Overview } from '../src/shared/wire/overview.js';
import { eventually, Recorder, writeAgentConfig } from './helpers/fleet.js';
import {
  HWMON_FIXTURE,
  HWMON_FIXTURE_TEMPS,
  RECORDED_DISKS,
  type StandInSmartctl,
  standInSmartctlEnv,
} from './helpers/machine-sources.js';
import { scanForSecrets } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

const AGENT_TOKEN = 'sources-agent-token-5e7a9c1b3d'; // secret-scan: token
/** On a busy process's command line: it must reach no overview and no log. */
const ARGUMENT_SECRET = 'sources-argument-secret-8d2f4b6a0c'; // secret-scan: token

/**
 * What the agent reads on its machine, end to end: real agents reading the real /proc, the
 * hwmon fixture tree and the stand-in smartctl first on their PATH, every second.
 */
describe('the busiest processes, the network, temperatures and disk health', () => {
  const dir = tempDir('panoptes-sources-');
  const http = new Recorder();
  const agents: Record<string, RunningProgram> = {};
  let busy: ChildProcess | null = null;

  /** Starts an agent with the stand-in smartctl behaving as `smartctl`. */
  const start = async (name: string, smartctl: StandInSmartctl, extra: Record<string, unknown>) => {
    agents[name] = await startAgent(
      writeAgentConfig(dir, name, {
        name,
        token: AGENT_TOKEN,
        data_dir: `${dir.path}/${name}-data`,
        hwmon: HWMON_FIXTURE,
        sample_interval: 1,
        ...extra,
      }),
      { env: standInSmartctlEnv(smartctl) },
    );
  };

  beforeAll(async () => {
    await Promise.all([
      start('main', {}, {}),
      start('denied', { denied: true }, {}),
      // Its reads may take 5 s (the time-out is the interval, at most 5 s): the stand-in hangs.
      start('hang', { hang: true }, { sample_interval: 5 }),
    ]);
  });
  afterAll(async () => {
    busy?.kill('SIGKILL');
    await Promise.all(Object.values(agents).map((a) => a.stop()));
    dir.cleanup();
  });

  const overview = async (name: string) => {
    const r = await http.call(`${agents[name]?.url}/api/overview`, { token: AGENT_TOKEN });
    expect(r.status).toBe(200);
    expect(Value.Errors(Overview, r.json)).toEqual([]);
    return { overview: r.json as Overview, text: r.text };
  };

  it("lists the agent's own node process by its real pid, name and user, never its arguments", async () => {
    const agent = agents.main as RunningProgram;
    // Keep the agent busy so that it is among the busiest by CPU whatever else runs here.
    const seen = await eventually(
      async () => {
        await Promise.all(Array.from({ length: 20 }, () => overview('main')));
        const { overview: o, text } = await overview('main');
        return o.processes?.some((p) => p.pid === agent.pid) ? { o, text } : undefined;
      },
      "the agent's pid among the processes",
      20_000,
    );
    const self = seen.o.processes?.find((p) => p.pid === agent.pid);
    expect(self).toMatchObject({ name: 'node', user: userInfo().username });
    expect(self?.mem).toBeGreaterThan(10 * 1024 * 1024);
    expect(seen.o.processes?.length).toBeLessThanOrEqual(20);
    // Its command line names its config file; the overview never does.
    expect(seen.text).not.toContain('--config');
    expect(seen.text).not.toContain(dir.path);
  });

  it('a busy process started with a secret argument is listed, without the argument', async () => {
    // A CPU-bound node for up to 30 s: among the busiest by CPU within a read or two.
    busy = spawn(
      process.execPath,
      ['-e', 'const end = Date.now() + 30000; while (Date.now() < end);', ARGUMENT_SECRET],
      {
        stdio: 'ignore',
      },
    );
    const pid = busy.pid;
    const { overview: o, text } = await eventually(async () => {
      const read = await overview('main');
      return read.overview.processes?.some((p) => p.pid === pid) ? read : undefined;
    }, 'the busy process among the processes');
    expect(o.processes?.find((p) => p.pid === pid)).toMatchObject({ name: 'node' });
    expect(o.processes?.find((p) => p.pid === pid)?.cpu).toBeGreaterThan(0.1);
    expect(text).not.toContain(ARGUMENT_SECRET);
    busy.kill('SIGKILL');
    busy = null;
    expect(
      scanForSecrets({
        secrets: [ARGUMENT_SECRET],
        programs: Object.values(agents),
        dirs: [dir.path],
      }),
    ).toEqual([]);
  });

  it('the network: every interface but loopback, with rates from the second read on', async () => {
    const o = await eventually(async () => {
      const { overview: o } = await overview('main');
      return o.net?.rx_bps !== null && o.net?.rx_bps !== undefined ? o : undefined;
    }, 'network rates');
    expect(o.net?.tx_bps).toBeGreaterThanOrEqual(0);
    const names = readFileSync('/proc/net/dev', 'utf8')
      .split('\n')
      .slice(2)
      .filter((l) => l.includes(':'))
      .map((l) => l.slice(0, l.indexOf(':')).trim())
      .filter((n) => n !== 'lo');
    expect(o.net?.interfaces.map((i) => i.name).sort()).toEqual(names.slice(0, 32).sort());
    for (const i of o.net?.interfaces ?? []) expect(i.rx_bytes).toBeGreaterThanOrEqual(0);
    expect(o.net_error).toBeUndefined();
  });

  it('temperatures: each sensor of the hwmon tree the config names', async () => {
    const o = await eventually(async () => {
      const { overview: o } = await overview('main');
      return o.temps === undefined ? undefined : o;
    }, 'temps');
    expect(o.temps).toEqual(HWMON_FIXTURE_TEMPS);
    expect(o.temps_error).toBeUndefined();
  });

  it('disk health: each disk smartctl found, the failing one with passed: false', async () => {
    const o = await eventually(async () => {
      const { overview: o } = await overview('main');
      return o.smart === undefined ? undefined : o;
    }, 'smart');
    expect(o.smart).toEqual(RECORDED_DISKS);
    expect(o.smart_error).toBeUndefined();
  });

  it('smartctl without the rights to any disk: smart_error saying so, no smart', async () => {
    const o = await eventually(async () => {
      const { overview: o } = await overview('denied');
      return o.smart_error === undefined ? undefined : o;
    }, 'smart_error on denied');
    expect(o.smart_error).toBe(
      'smartctl could not read /dev/nvme0: Smartctl open device: /dev/loop0 [SAT] failed: Permission denied',
    );
    expect(o.smart).toBeUndefined();
    // The other sources are unaffected.
    expect(o.temps).toEqual(HWMON_FIXTURE_TEMPS);
  });

  it('a hanging smartctl: smart_error after the time-out, and the overview answers at once meanwhile', async () => {
    const slowest = { ms: 0 };
    const o = await eventually(
      async () => {
        const started = Date.now();
        const { overview: o } = await overview('hang');
        slowest.ms = Math.max(slowest.ms, Date.now() - started);
        return o.smart_error === undefined ? undefined : o;
      },
      'smart_error on hang',
      20_000,
    );
    expect(o.smart_error).toBe('smartctl did not answer within 5000 ms');
    expect(o.smart).toBeUndefined();
    // About a hundred overviews were asked for while smartctl hung for 5 s; none waited for it.
    expect(slowest.ms).toBeLessThan(1000);
  });
});
