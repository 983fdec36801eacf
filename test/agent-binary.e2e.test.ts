import { execFile } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { agentBinaryBuilt, agentBinaryIn } from '../harness/agent-binary.js';
import { type RunningProgram, startBoard, startProcess } from '../harness/processes.js';
import { eventually, REGISTRATION } from './helpers/agent-fixtures.js';
import { watchCmdlines } from './helpers/cmdline-watch.js';
import { which } from './helpers/systemd.js';
import { tempDir } from './helpers/tmp.js';

const run = promisify(execFile);
const TOKEN = 'agent-binary-e2e-board-token-5a0c';
const auth = { authorization: `Bearer ${TOKEN}` };
const root = process.getuid?.() === 0;
const built = agentBinaryBuilt('linux-x64');
if (!built && process.env.CI === 'true') {
  throw new Error('the linux-x64 agent binary is not built (npm run build makes it; CI must)');
}
/** The binary, unzipped from the build's .gz into the suite's directory. */
let BINARY = '';
// The busybox tools the pasted command may call on such a machine, and a few to look around.
const TOOLS = ['sh', 'wget', 'sha256sum', 'uname', 'chmod', 'grep', 'rm', 'cat', 'ls', 'mkdir'];

/** The shared libraries `ldd` lists for a program: the paths the loader will look at. */
async function libraries(program: string): Promise<string[]> {
  const { stdout } = await run('ldd', [program]);
  return [...stdout.matchAll(/(\/\S+) \(0x/g)].map((m) => m[1] as string);
}

/**
 * A machine without Node: a chroot holding only a static busybox, the C and C++ libraries the
 * agent binary needs, /proc, and a few device nodes. The command the board gives is pasted into
 * its shell (standard input, as a person would), and the machine must turn up verified.
 */
describe.skipIf(!root)('the agent binary on a machine without Node (chroot, busybox)', () => {
  const dir = tempDir('panoptes-agent-binary-');
  const machine = join(dir.path, 'machine');
  let board: RunningProgram;
  let agent: RunningProgram | undefined;
  let procMounted = false;

  const api = async (method: string, path: string) => {
    const r = await fetch(`${board.url}${path}`, { method, headers: auth });
    return (await r.json()) as Record<string, unknown>;
  };

  beforeAll(async () => {
    if (!built) throw new Error('the linux-x64 agent binary is not built: run npm run build');
    BINARY = await agentBinaryIn('linux-x64', dir.path);
    for (const d of ['bin', 'etc', 'root', 'tmp', 'dev', 'proc']) {
      mkdirSync(join(machine, d), { recursive: true });
    }
    copyFileSync('/bin/busybox', join(machine, 'bin/busybox'));
    for (const tool of TOOLS) symlinkSync('busybox', join(machine, 'bin', tool));
    for (const lib of await libraries(BINARY)) {
      mkdirSync(join(machine, dirname(lib)), { recursive: true });
      copyFileSync(realpathSync(lib), join(machine, lib));
    }
    writeFileSync(join(machine, 'etc/passwd'), 'root:x:0:0:root:/root:/bin/sh\n');
    writeFileSync(join(machine, 'etc/group'), 'root:x:0:\n');
    writeFileSync(join(machine, 'etc/hosts'), '127.0.0.1 localhost\n');
    for (const [name, minor] of [
      ['null', 3],
      ['zero', 5],
      ['random', 8],
      ['urandom', 9],
    ] as const) {
      await run('mknod', ['-m', '666', join(machine, 'dev', name), 'c', '1', String(minor)]);
    }
    // The agent reads the machine's figures from /proc.
    await run('mount', ['-t', 'proc', 'proc', join(machine, 'proc')]);
    procMounted = true;
    dir.write(
      'board/board.yaml',
      stringify({ board_token: TOKEN, registration_token: REGISTRATION }),
    );
    board = await startBoard(join(dir.path, 'board'));
  }, 60_000);

  afterAll(async () => {
    await agent?.stop();
    await board?.stop();
    // Never remove the directory while /proc is mounted in it.
    if (procMounted) await run('umount', ['-l', join(machine, 'proc')]);
    dir.cleanup();
  });

  it('has no node: the command fetches the binary with wget, checks it, and the machine reports verified', async () => {
    // Nothing named node anywhere on that machine.
    const all = (
      await run('find', [machine, '-path', join(machine, 'proc'), '-prune', '-o', '-print'])
    ).stdout;
    expect(all.split('\n').filter((p) => /\/node$/.test(p))).toEqual([]);
    const enrolled = await api('POST', '/api/machines/lab-bin/enroll');
    const command = enrolled.command as string;
    const key = enrolled.key as string;
    expect(command).toContain('panoptes-agent-linux-x64');
    const watch = await watchCmdlines([key, REGISTRATION]);
    const started = performance.now();
    agent = await startProcess(
      'chroot agent',
      (await which('chroot')) ?? '/usr/sbin/chroot',
      [machine, '/bin/sh'],
      {
        input: `cd /root && ${command} --host 127.0.0.1 --port 0 --interval 1\n`,
        env: { PATH: '/bin', HOME: '/root' },
        timeoutMs: 60_000,
      },
    );
    const listening = performance.now() - started;
    const overview = await fetch(`${agent.url}/api/overview`);
    expect([200, 401]).toContain(overview.status);
    const lab = await eventually(
      async () => {
        const all = (await api('GET', '/api/board')).machines as {
          name: string;
          state: string;
          verified: boolean | null;
        }[];
        const m = all.find((x) => x.name === 'lab-bin');
        return m?.state === 'up' && m.verified === true ? m : undefined;
      },
      'lab-bin up and verified',
      600,
    );
    expect(lab.verified).toBe(true);
    // The board knows this agent as the x64 binary it serves (SHA256SUMS), the file updates replace.
    const sums = await (await fetch(`${board.url}/agent/SHA256SUMS`)).text();
    const served = /^([0-9a-f]{64}) {2}panoptes-agent-linux-x64$/m.exec(sums)?.[1];
    expect(served).toMatch(/^[0-9a-f]{64}$/);
    const agentRecord = await eventually(async () => {
      const all = (await api('GET', '/api/board')).machines as {
        name: string;
        agent?: { sha256: string | null } | null;
      }[];
      const a = all.find((x) => x.name === 'lab-bin')?.agent;
      return a?.sha256 ? a : undefined;
    }, "lab-bin's agent file known to the board");
    expect(agentRecord.sha256).toBe(served);
    const { hits, scans } = await watch.stop();
    expect(hits).toEqual([]);
    expect(scans).toBeGreaterThan(0);
    // The agent is the binary itself, run from where the command saved it.
    const pids = readdirSync('/proc').filter((p) => /^\d+$/.test(p));
    const agentPid = pids.find((p) => {
      try {
        return readFileSync(`/proc/${p}/cmdline`, 'utf8').startsWith(
          './panoptes-agent-linux-x64\0enroll',
        );
      } catch {
        return false;
      }
    });
    expect(agentPid).toBeDefined();
    expect(readlinkSync(`/proc/${agentPid}/exe`)).toBe(
      join(machine, 'root/panoptes-agent-linux-x64'),
    );
    expect(readdirSync(join(machine, 'root')).sort()).toEqual([
      'panoptes-agent-data',
      'panoptes-agent-linux-x64',
      'panoptes-agent.yaml',
    ]);
    for (const line of [...agent.output, ...board.output]) {
      expect(line).not.toContain(key);
      expect(line).not.toContain(REGISTRATION);
    }
    console.log(`chroot: paste to the agent listening took ${listening.toFixed(0)} ms`);
  }, 120_000);

  it('enroll --systemd from the binary installs it and writes a unit that runs the binary itself, without node', async () => {
    const enrolled = await api('POST', '/api/machines/lab-unit/enroll');
    const work = join(dir.path, 'unit-machine');
    const installed = join(dir.path, 'installed');
    mkdirSync(work);
    const { stdout } = await run(
      BINARY,
      [
        'enroll',
        `--board=${board.url}`,
        '--name=lab-unit',
        '--systemd',
        '--unit-dir',
        'units',
        '--install-dir',
        installed,
      ],
      {
        cwd: work,
        env: {
          PATH: '/usr/bin:/bin',
          HOME: work,
          PANOPTES_BOARD_KEY: enrolled.key as string,
          PANOPTES_REGISTRATION_TOKEN: REGISTRATION,
        },
      },
    );
    expect(stdout).toContain('unit written to');
    const unit = readFileSync(join(work, 'units/panoptes-agent.service'), 'utf8');
    const copy = join(installed, 'panoptes-agent-linux-x64');
    expect(unit).toContain(
      `ExecStart="${copy}" --config "${join(installed, 'panoptes-agent.yaml')}"`,
    );
    expect(statSync(copy).mode & 0o777).toBe(statSync(BINARY).mode & 0o777);
    expect(unit).not.toContain('node');
    // Its help names it as it was run, not as node and a file.
    const help = (await run(BINARY, ['--help'])).stdout;
    expect(help).toContain(`${BINARY} [--config FILE]`);
    expect(help).not.toContain('node panoptes-agent.mjs');
  });
});
