import { execFile, spawn, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { trackChild } from './processes.js';

const run = promisify(execFile);

/** The image every harness imports: a static busybox at /bin/busybox, with /bin/sh beside it. */
export const TEST_IMAGE = 'localhost/panoptes-test:1';

/** How a container is started (`podman run -d` unless `created`). */
export interface ContainerOptions {
  /** The command (default: `/bin/busybox sleep 100000`). */
  cmd?: readonly string[];
  /** A health check, run by /bin/sh in the container (`podman healthcheck run` runs it). */
  health?: string;
  /** Failures before the container is unhealthy (default Podman's 3). */
  healthRetries?: number;
  /** `--restart`, e.g. `on-failure:2`. */
  restart?: string;
  /** `podman create`: made, never started. */
  created?: boolean;
}

/**
 * A private Podman for a test or a bench run: its own storage, run and lock directories in a
 * temporary directory, and its Docker-compatible API on a unix socket there. Nothing of the
 * machine's own containers is seen or touched, and several can run side by side.
 */
export interface PodmanHarness {
  /** The API socket (`podman system service`). */
  socket: string;
  dir: string;
  /** Runs the CLI against this Podman; resolves with stdout, rejects with its stderr. */
  podman(args: readonly string[]): Promise<string>;
  /** Runs (or creates) a container of TEST_IMAGE; resolves with its id. */
  run(name: string, options?: ContainerOptions): Promise<string>;
  /** Runs the container's health check once; resolves with the status it left. */
  healthcheck(name: string): Promise<string>;
  /** `podman inspect` of one container, parsed. */
  inspect(name: string): Promise<Record<string, unknown>>;
  /** Removes every container, stops the API service and removes the directory. */
  close(): Promise<void>;
}

/** Why the containers' tests cannot run here, or null when podman, runc and busybox are installed. */
export function podmanMissing(): string | null {
  const missing = ['podman', 'runc'].filter(
    (tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0,
  );
  if (!existsSync('/bin/busybox')) missing.push('busybox-static (/bin/busybox)');
  if (missing.length === 0) return null;
  return `${missing.join(', ')} not installed: apt-get install -y podman runc busybox-static (.ci/run does this)`;
}

/** Harnesses not closed yet: their containers and service go when this process exits. */
const open = new Set<{ closeNow(): void }>();
process.once('exit', () => {
  for (const h of open) h.closeNow();
});

/** Starts a private Podman and imports TEST_IMAGE (~1 s). Throws with the reason when it cannot. */
export async function startPodman(): Promise<PodmanHarness> {
  const missing = podmanMissing();
  if (missing !== null) throw new Error(missing);
  const dir = mkdtempSync(join(tmpdir(), 'panoptes-podman-'));
  const socket = join(dir, 'podman.sock');
  const { flags, env, podman } = podmanCli(dir);

  const image = join(dir, 'image');
  mkdirSync(join(image, 'bin'), { recursive: true });
  copyFileSync('/bin/busybox', join(image, 'bin/busybox'));
  spawnSync('ln', ['-s', 'busybox', join(image, 'bin/sh')]);
  spawnSync('tar', ['-C', image, '-cf', join(dir, 'image.tar'), '.']);
  await podman(['import', '-q', join(dir, 'image.tar'), TEST_IMAGE]);

  const service = spawn('podman', [...flags, 'system', 'service', '--time=0', `unix://${socket}`], {
    env,
    detached: true,
    stdio: 'ignore',
  });
  trackChild(service);
  const serviceExited = new Promise<void>((resolve) => service.once('exit', () => resolve()));

  /** The full ids of the containers made here. */
  const made = new Set<string>();
  const closeNow = (): void => {
    spawnSync('podman', [...flags, 'rm', '-af', '-t', '0'], { env, timeout: 30_000 });
    try {
      if (service.pid !== undefined) process.kill(-service.pid, 'SIGKILL');
    } catch {
      // already gone
    }
    killLeftovers(dir, made);
    rmSync(dir, { recursive: true, force: true });
  };
  const entry = { closeNow };
  open.add(entry);
  try {
    await waitForPing(socket, 15_000);
  } catch (error) {
    open.delete(entry);
    closeNow();
    throw error;
  }

  const harness: PodmanHarness = {
    socket,
    dir,
    podman,
    async run(name, options = {}) {
      const args = [
        options.created === true ? 'create' : 'run',
        ...(options.created === true ? [] : ['-d']),
        '--name',
        name,
        '--pull',
        'never',
        '--network',
        'none',
        '--ulimit',
        'nofile=1024:1024',
        '--ulimit',
        'nproc=1024:1024',
      ];
      if (options.health !== undefined) args.push('--health-cmd', options.health);
      if (options.healthRetries !== undefined)
        args.push('--health-retries', String(options.healthRetries));
      if (options.restart !== undefined) args.push('--restart', options.restart);
      args.push(TEST_IMAGE, ...(options.cmd ?? ['/bin/busybox', 'sleep', '100000']));
      const id = await podman(args);
      made.add(id);
      return id;
    },
    async healthcheck(name) {
      // Exit 1 means "unhealthy", which is an answer here, not a failure.
      const done = await run('podman', [...flags, 'healthcheck', 'run', name], { env }).catch(
        (error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }),
      );
      return done.stdout.trim() === '' ? 'healthy' : done.stdout.trim();
    },
    async inspect(name) {
      const parsed = JSON.parse(await podman(['inspect', name])) as Record<string, unknown>[];
      const first = parsed[0];
      if (first === undefined) throw new Error(`podman inspect ${name}: nothing`);
      return first;
    },
    async close() {
      if (!open.delete(entry)) return;
      // A container that was being stopped through the API may resist one removal.
      for (let tries = 0; tries < 3; tries += 1) {
        await podman(['rm', '-af', '-t', '0']).catch(() => '');
        if ((await podman(['ps', '-aq']).catch(() => '')) === '') break;
      }
      if (service.pid !== undefined) {
        try {
          process.kill(-service.pid, 'SIGTERM');
        } catch {
          // already gone
        }
        const killer = setTimeout(() => {
          try {
            process.kill(-(service.pid as number), 'SIGKILL');
          } catch {
            // already gone
          }
        }, 5000);
        await serviceExited;
        clearTimeout(killer);
      }
      killLeftovers(dir, made);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return harness;
}

/**
 * The last resort when Podman left something behind (a container being stopped through the API
 * while it is removed can keep its processes or its cgroup): SIGKILLs every process in the
 * containers' cgroups and every one whose command line names `dir` (conmon names its
 * container's directories), and removes the cgroups.
 */
function killLeftovers(dir: string, ids: ReadonlySet<string>): void {
  const groups: string[] = [];
  for (const id of ids) {
    groups.push(`/sys/fs/cgroup/libpod_parent/libpod-${id}`);
    for (const controller of readdirSync('/sys/fs/cgroup')) {
      groups.push(`/sys/fs/cgroup/${controller}/libpod_parent/libpod-${id}`);
    }
  }
  const pids = new Set<number>();
  for (const group of groups) {
    try {
      for (const pid of readFileSync(`${group}/cgroup.procs`, 'utf8').split('\n')) {
        if (pid !== '') pids.add(Number(pid));
      }
    } catch {
      // no such cgroup
    }
  }
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(dir)) pids.add(Number(pid));
    } catch {
      // gone meanwhile
    }
  }
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
  for (const group of groups) {
    if (existsSync(group)) spawnSync('rmdir', [group]);
  }
}

/** The CLI of a private Podman whose storage, run and lock directories are in `dir`. */
export function podmanCli(dir: string): {
  flags: string[];
  env: NodeJS.ProcessEnv;
  podman(args: readonly string[], timeoutMs?: number): Promise<string>;
} {
  // File locks in the directory, not the machine-wide shared-memory segment; vfs storage, so
  // that no overlay mount outlives a container; no registry is ever asked for an image.
  writeFileSync(join(dir, 'containers.conf'), '[engine]\nlock_type = "file"\n');
  writeFileSync(
    join(dir, 'storage.conf'),
    `[storage]\ndriver = "vfs"\nrunroot = "${dir}/run"\ngraphroot = "${dir}/storage"\n`,
  );
  writeFileSync(join(dir, 'registries.conf'), 'unqualified-search-registries = []\n');
  const env = {
    ...process.env,
    CONTAINERS_CONF: join(dir, 'containers.conf'),
    CONTAINERS_STORAGE_CONF: join(dir, 'storage.conf'),
    CONTAINERS_REGISTRIES_CONF: join(dir, 'registries.conf'),
  };
  const flags = [
    '--root',
    join(dir, 'storage'),
    '--runroot',
    join(dir, 'run'),
    '--tmpdir',
    join(dir, 'tmp'),
    '--storage-driver',
    'vfs',
    '--runtime',
    'runc',
    '--cgroup-manager',
    'cgroupfs',
    '--events-backend',
    'file',
  ];
  const podman = async (args: readonly string[], timeoutMs = 60_000): Promise<string> => {
    try {
      const { stdout } = await run('podman', [...flags, ...args], {
        env,
        timeout: timeoutMs,
        maxBuffer: 16 * 1024 * 1024,
      });
      return stdout.trim();
    } catch (error) {
      const e = error as { stderr?: string; message: string };
      throw new Error(`podman ${args.join(' ')} failed: ${e.stderr?.trim() || e.message}`);
    }
  };
  return { flags, env, podman };
}

/** Waits until the API answers `GET /_ping` on `socket`. */
async function waitForPing(socket: string, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const req = request({ socketPath: socket, path: '/_ping', timeout: 1000 }, (res) => {
        res.resume();
        resolve(res.statusCode === 200);
      });
      req.on('error', () => resolve(false));
      req.on('timeout', () => req.destroy());
      req.end();
    });
    if (ok) return;
    if (Date.now() > until) throw new Error(`podman system service did not answer on ${socket}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
