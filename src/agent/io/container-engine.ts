import { stat } from 'node:fs/promises';
import { Agent } from 'node:http';
import { safeText } from '../../shared/wire/free-text.js';
import {
  type ContainerEngine,
  ENGINE_CONCURRENCY,
  type EngineCall,
} from '../domain/container-watch.js';
import { AnswerTooLarge, CallTimedOut, httpCall } from './http-call.js';

/** The most a list may weigh (thousands of containers fit); other answers are small. */
const LIST_MAX_BYTES = 16 * 1024 * 1024;
const ANSWER_MAX_BYTES = 1024 * 1024;

/** The sockets looked for when the config names none, in order. */
export const DEFAULT_SOCKETS: readonly string[] = [
  '/var/run/docker.sock',
  '/run/podman/podman.sock',
];

/**
 * Where the engine's socket may be: `containers.socket` from the config; else DOCKER_HOST when
 * it is `unix://PATH`; else the first of DEFAULT_SOCKETS that exists.
 */
export function engineSockets(configured: string | null, env: NodeJS.ProcessEnv): string[] {
  if (configured !== null) return [configured];
  const host = env.DOCKER_HOST;
  if (host?.startsWith('unix://') === true && host.length > 'unix://'.length) {
    return [host.slice('unix://'.length)];
  }
  return [...DEFAULT_SOCKETS];
}

/**
 * The engine on a unix socket, through node:http: a few connections kept open, one time-out per
 * call, answers read up to a bound. A socket that is not there is `absent` (looked for again at
 * the next read); one that refuses or stays silent is a failure with its reason.
 */
export function dockerEngine(
  sockets: readonly string[],
): ContainerEngine & { close(): Promise<void> } {
  let pool: { path: string; agent: Agent } | null = null;
  const inFlight = new Set<AbortController>();

  const agentFor = (path: string): Agent => {
    if (pool?.path === path) return pool.agent;
    pool?.agent.destroy();
    // One connection per concurrent read call, and two more for actions.
    const next = new Agent({ keepAlive: true, maxSockets: ENGINE_CONCURRENCY + 2 });
    pool = { path, agent: next };
    return next;
  };

  async function call(
    method: 'GET' | 'POST',
    path: string,
    timeoutMs: number,
    maxBytes = ANSWER_MAX_BYTES,
    lookAgain = true,
  ): Promise<EngineCall<{ status: number; json: unknown }>> {
    // The read's inspects and stats follow its list: the socket it found is still the one.
    const socket = !lookAgain && pool !== null ? pool.path : await findSocket(sockets);
    if (socket === null) {
      return {
        ok: false,
        kind: 'absent',
        reason: `no container engine socket at ${sockets.join(' or ')}`,
      };
    }
    const controller = new AbortController();
    inFlight.add(controller);
    try {
      const answer = await httpCall({
        method,
        // No version prefix: the engine answers in its own current API version. A pinned one
        // ages out (Docker 29 refuses anything older than 1.44, Docker 20.10 anything newer
        // than 1.41); the few fields read are the same in all of them, and in Podman's.
        url: path,
        socketPath: socket,
        agent: agentFor(socket),
        timeoutMs,
        maxBytes,
        signal: controller.signal,
      });
      let json: unknown = null;
      if (answer.text.trim() !== '') {
        try {
          json = JSON.parse(answer.text);
        } catch {
          if (answer.status < 300)
            return {
              ok: false,
              kind: 'refused',
              reason: 'the container engine answered something that is not JSON',
            };
        }
      }
      return { ok: true, value: { status: answer.status, json } };
    } catch (error) {
      if (error instanceof AnswerTooLarge) {
        return {
          ok: false,
          kind: 'refused',
          reason: `the container engine answered more than ${maxBytes} bytes`,
        };
      }
      if (error instanceof CallTimedOut) {
        return {
          ok: false,
          kind: 'timeout',
          reason: `the container engine did not answer within ${timeoutMs} ms`,
        };
      }
      return { ok: false, kind: 'unreachable', reason: unreachable(socket, error) };
    } finally {
      inFlight.delete(controller);
    }
  }

  async function get(
    path: string,
    timeoutMs: number,
    maxBytes = ANSWER_MAX_BYTES,
    lookAgain = false,
  ): Promise<EngineCall<unknown>> {
    const answer = await call('GET', path, timeoutMs, maxBytes, lookAgain);
    if (!answer.ok) return answer;
    const { status, json } = answer.value;
    if (status >= 200 && status < 300) return { ok: true, value: json };
    return refused(status, json);
  }

  async function act(path: string, timeoutMs: number): Promise<EngineCall<'done' | 'already'>> {
    const answer = await call('POST', path, timeoutMs);
    if (!answer.ok) return answer;
    const { status, json } = answer.value;
    if (status === 304) return { ok: true, value: 'already' };
    if (status >= 200 && status < 300) return { ok: true, value: 'done' };
    return refused(status, json);
  }

  const id = (name: string) => encodeURIComponent(name);
  return {
    list: (timeoutMs) => get('/containers/json?all=true', timeoutMs, LIST_MAX_BYTES, true),
    inspect: (name, timeoutMs) => get(`/containers/${id(name)}/json`, timeoutMs),
    // One sample, at once: without one-shot, Docker waits for a second one to fill precpu_stats.
    stats: (name, timeoutMs) =>
      get(`/containers/${id(name)}/stats?stream=false&one-shot=true`, timeoutMs),
    start: (name, timeoutMs) => act(`/containers/${id(name)}/start`, timeoutMs),
    stop: (name, graceS, timeoutMs) =>
      act(`/containers/${id(name)}/stop?t=${Math.max(0, Math.ceil(graceS))}`, timeoutMs),
    cancel() {
      for (const controller of inFlight) controller.abort();
    },
    async close() {
      for (const controller of inFlight) controller.abort();
      pool?.agent.destroy();
      pool = null;
    },
  };
}

/** The first of `sockets` that is a unix socket now, or null. */
async function findSocket(sockets: readonly string[]): Promise<string | null> {
  for (const path of sockets) {
    try {
      if ((await stat(path)).isSocket()) return path;
    } catch {
      // not there (or not ours to see): the next one
    }
  }
  return null;
}

/** An HTTP error from the engine, with its own message (one line, bounded: it is data). */
function refused<T>(status: number, json: unknown): EngineCall<T> {
  const message =
    json !== null &&
    typeof json === 'object' &&
    'message' in json &&
    typeof json.message === 'string'
      ? `: ${safeText(json.message).slice(0, 160)}`
      : '';
  return {
    ok: false,
    kind: 'refused',
    status,
    reason: `the container engine answered HTTP ${status}${message}`,
  };
}

/** Why the socket could not be used, as an operator reads it. */
function unreachable(socket: string, error: unknown): string {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (code === 'EACCES' || code === 'EPERM')
    return `cannot use the container engine socket ${socket}: permission denied`;
  if (code === 'ECONNREFUSED')
    return `the container engine socket ${socket} refused the connection`;
  const message = error instanceof Error ? error.message : String(error);
  return `cannot reach the container engine at ${socket}: ${code ?? message}`;
}
