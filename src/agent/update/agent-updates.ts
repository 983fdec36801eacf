import { spawn } from 'node:child_process';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SelfFile } from './self-file.js';
import type { Trial } from './updater.js';

/** The secrets an enrollment passes in the environment: the new file reads its config instead. */
const DROPPED_ENV = ['PANOPTES_BOARD_KEY', 'PANOPTES_REGISTRATION_TOKEN'];

/**
 * Starts the agent file at `self.path` as this agent (same config, host and port), detached
 * (its own session), writing to this process's stdout and stderr.
 */
export function spawnAgentFile(
  self: SelfFile,
  config: string,
  host: string,
  port: number,
  env: NodeJS.ProcessEnv = process.env,
): Trial {
  const args = ['--config', config, '--host', host, '--port', String(port)];
  const argv =
    self.name === 'panoptes-agent.mjs'
      ? [process.execPath, ...process.execArgv, self.path, ...args]
      : [self.path, ...args];
  const childEnv = { ...env };
  for (const name of DROPPED_ENV) delete childEnv[name];
  const child = spawn(argv[0] as string, argv.slice(1), {
    detached: true,
    stdio: ['ignore', 'inherit', 'inherit'],
    env: childEnv,
  });
  const exited = new Promise<{ code: number | null; signal: string | null }>((done) => {
    child.once('exit', (code, signal) => done({ code, signal }));
    // Could not be started at all (a file that is not executable): as a failed start.
    child.once('error', () => done({ code: 127, signal: null }));
  });
  // The new agent outlives this process: nothing here waits for it.
  child.unref();
  return {
    pid: child.pid ?? -1,
    exited,
    kill: (signal) => {
      try {
        child.kill(signal);
      } catch {
        // gone already
      }
    },
  };
}

/** The port the server listens on (the new file takes the same one). */
export function listeningPort(server: Server, fallback: number): number {
  const address = server.address() as AddressInfo | string | null;
  return address !== null && typeof address === 'object' ? address.port : fallback;
}

/** Stops listening and ends the open connections, so the new file can take the port. */
export async function closeListener(server: Server): Promise<void> {
  const closed = new Promise<void>((done) => server.close(() => done()));
  server.closeAllConnections();
  // An upgraded connection (a WebSocket through /proxy/) is not waited for.
  await Promise.race([closed, new Promise((r) => setTimeout(r, 2000))]);
}

/** Listens again on the same host and port (after a rollback). */
export function listenAgain(server: Server, host: string, port: number): Promise<void> {
  return new Promise((done, fail) => {
    server.once('error', fail);
    server.listen(port, host, () => {
      server.off('error', fail);
      done();
    });
  });
}

/** Under systemd (it sets INVOCATION_ID for a service's processes). */
export function underSystemd(env: NodeJS.ProcessEnv = process.env): boolean {
  return typeof env.INVOCATION_ID === 'string' && env.INVOCATION_ID !== '';
}

/** The exit code that makes systemd's Restart=on-failure start the unit (now the new file). */
export const RESTART_EXIT_CODE = 75;
