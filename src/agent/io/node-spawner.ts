import { spawn } from 'node:child_process';
import type { Child, Exit, Spawner } from '../domain/spawner.js';

/** How long to wait for a child's output pipes to close after it exited (a grandchild may hold them). */
const PIPE_DRAIN_MS = 500;

/** Environment variables a child must never inherit: the agent's own secrets. */
const SECRET_ENV = [
  'PANOPTES_AGENT_TOKEN',
  'PANOPTES_BOARD_KEY',
  'PANOPTES_BELL_TOKEN',
  'PANOPTES_REGISTRATION_TOKEN',
];

/**
 * The agent's environment without its secrets, for the commands it runs: the PANOPTES_*
 * variables and every variable a secret field of the config was read from (`secretEnv`).
 */
export function childEnv(
  env: NodeJS.ProcessEnv,
  secretEnv: readonly string[] = [],
): NodeJS.ProcessEnv {
  const out = { ...env };
  for (const name of [...SECRET_ENV, ...secretEnv]) delete out[name];
  return out;
}

/** A Spawner and a way to end everything it started that is still running. */
export interface NodeSpawner {
  spawn: Spawner;
  /** SIGKILLs the process group of every child still running (at shutdown: status checks). */
  killAll(): void;
}

/**
 * Starts argvs with node:child_process, never through a shell, each in its own process group so
 * that a stop or a time-out reaches everything the command started.
 */
export function trackedSpawner(env: NodeJS.ProcessEnv): NodeSpawner {
  const live = new Set<Child>();
  const spawnOne: Spawner = ({ argv, cwd, env: own, onOutput, onStderr }) => {
    const [program, ...args] = argv;
    if (program === undefined) throw new Error('empty argv');
    const child = spawn(program, args, {
      cwd: cwd ?? undefined,
      env: own === undefined ? env : { ...env, ...own },
      shell: false,
      detached: true,
      windowsHide: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', onOutput);
    child.stderr?.on('data', onStderr ?? onOutput);

    let spawned = false;
    const started = new Promise<void>((resolve, reject) => {
      child.once('spawn', () => {
        spawned = true;
        resolve();
      });
      child.once('error', (error) => {
        if (!spawned) reject(error);
      });
    });
    // Errors after the start (a failed kill, a broken pipe) change nothing about the outcome.
    child.on('error', () => undefined);
    started.catch(() => undefined);

    const exited = new Promise<Exit>((resolve) => {
      let exit: Exit | null = null;
      child.once('error', () => {
        if (!spawned) resolve({ code: null, signal: null });
      });
      child.once('exit', (code, signal) => {
        exit = { code, signal };
        const timer = setTimeout(() => {
          child.stdout?.destroy();
          child.stderr?.destroy();
          resolve({ code, signal });
        }, PIPE_DRAIN_MS);
        timer.unref();
        child.once('close', () => {
          clearTimeout(timer);
          resolve({ code, signal });
        });
      });
      child.once('close', (code, signal) => resolve(exit ?? { code, signal }));
    });

    const handle: Child = {
      get pid() {
        return child.pid;
      },
      started,
      exited,
      kill(signal) {
        const pid = child.pid;
        if (pid === undefined) return;
        try {
          process.kill(-pid, signal);
        } catch {
          try {
            child.kill(signal);
          } catch {
            // already gone
          }
        }
      },
    };
    live.add(handle);
    void exited.then(() => live.delete(handle));
    return handle;
  };
  return {
    spawn: spawnOne,
    killAll() {
      for (const child of live) child.kill('SIGKILL');
    },
  };
}

/** The same, for a caller that does not need killAll. */
export function nodeSpawner(env: NodeJS.ProcessEnv): Spawner {
  return trackedSpawner(env).spawn;
}
