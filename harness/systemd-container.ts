import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { podmanCli, podmanMissing } from './podman.js';
import { runWithInput } from './run-with-input.js';

/** The image a root file system tar is imported as, in the private Podman's storage. */
export const SYSTEMD_IMAGE = 'localhost/panoptes-debian-systemd:1';

/** What a command run in the container did. */
export interface Ran {
  code: number | null;
  output: string;
}

/**
 * A Debian container whose PID 1 is systemd, in a private Podman (its own storage in a
 * temporary directory, as harness/podman.ts), on the host's network.
 */
export interface SystemdContainer {
  name: string;
  /** Runs a shell script in the container; the script goes on stdin, never in an argument. */
  sh(script: string, timeoutMs?: number): Promise<Ran>;
  /** Like sh, but throws with the output when the script fails. */
  must(script: string, timeoutMs?: number): Promise<string>;
  /** `systemctl show` of a unit: the properties asked for. */
  show(unit: string, properties: readonly string[]): Promise<Record<string, string>>;
  /** Removes the container (systemd shuts down first), the image and the private storage. */
  close(): Promise<void>;
}

/** Containers not closed yet: removed when this process exits. */
const open = new Set<() => void>();
process.once('exit', () => {
  for (const closeNow of open) closeNow();
});

/**
 * Imports `tar` and runs its /sbin/init (systemd) as PID 1: `--systemd always` (Podman mounts
 * what systemd needs: /run and /tmp as tmpfs, the cgroups writable), the runtime runc, the
 * ulimits set (these machines' defaults are refused) and the host's network, so that 127.0.0.1
 * is the host's. `binds`: host paths mounted read-only. Resolves once systemd says the system runs.
 */
export async function startSystemdContainer(
  tar: string,
  binds: readonly { host: string; container: string }[],
): Promise<SystemdContainer> {
  const missing = podmanMissing();
  if (missing !== null) throw new Error(missing);
  const dir = mkdtempSync(join(tmpdir(), 'panoptes-systemd-'));
  const { flags, env, podman } = podmanCli(dir);
  const name = `panoptes-systemd-${process.pid}`;
  const closeNow = () => {
    spawnSync('podman', [...flags, 'rm', '-f', '-t', '5', name], { env, timeout: 60_000 });
    spawnSync('podman', [...flags, 'rmi', '-f', SYSTEMD_IMAGE], { env, timeout: 60_000 });
    rmSync(dir, { recursive: true, force: true });
  };
  open.add(closeNow);

  const sh = (script: string, timeoutMs = 120_000): Promise<Ran> =>
    runWithInput('podman', [...flags, 'exec', '-i', name, '/bin/sh', '-s'], `${script}\n`, {
      env,
      timeoutMs,
    });
  const must = async (script: string, timeoutMs?: number) => {
    const ran = await sh(script, timeoutMs);
    if (ran.code !== 0)
      throw new Error(`in the container, exit ${ran.code}: ${script}\n${ran.output}`);
    return ran.output;
  };

  try {
    await podman(['import', '-q', tar, SYSTEMD_IMAGE], 180_000);
    const args = ['run', '-d', '--name', name, '--pull', 'never', '--network', 'host'];
    args.push('--systemd', 'always', '--hostname', 'panoptes-systemd');
    args.push('--ulimit', 'nofile=1024:1024', '--ulimit', 'nproc=1024:1024');
    for (const b of binds) args.push('-v', `${b.host}:${b.container}:ro`);
    await podman([...args, SYSTEMD_IMAGE, '/sbin/init'], 120_000);
    // `is-system-running --wait` returns once start-up is done (running, or degraded); before
    // systemd has made its socket it cannot be asked at all.
    const until = Date.now() + 120_000;
    let state = await sh('systemctl is-system-running --wait', 120_000);
    while (/Failed to connect to bus/.test(state.output) && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 200));
      state = await sh('systemctl is-system-running --wait', 120_000);
    }
    if (!/^(running|degraded)/.test(state.output.trim())) {
      const logs = await podman(['logs', '--tail', '40', name]).catch((e: Error) => e.message);
      throw new Error(`systemd did not come up as PID 1: ${state.output.trim()}\n${logs}`);
    }
  } catch (error) {
    open.delete(closeNow);
    closeNow();
    throw error;
  }

  return {
    name,
    sh,
    must,
    async show(unit, properties) {
      const text = await must(`systemctl show ${unit} -p ${properties.join(',')}`);
      const found: Record<string, string> = {};
      for (const line of text.trim().split('\n')) {
        const at = line.indexOf('=');
        if (at > 0) found[line.slice(0, at)] = line.slice(at + 1);
      }
      return found;
    },
    async close() {
      if (!open.delete(closeNow)) return;
      // systemd stops its units (SIGRTMIN+3, Podman's stop signal for it), then the rest goes.
      await podman(['stop', '-t', '10', name], 60_000).catch(() => '');
      await podman(['rm', '-f', '-t', '0', name], 60_000).catch(() => '');
      await podman(['rmi', '-f', SYSTEMD_IMAGE], 60_000).catch(() => '');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
