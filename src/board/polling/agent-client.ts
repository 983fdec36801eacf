import { isUtf8 } from 'node:buffer';
import { Agent, buildConnector, errors as undiciErrors } from 'undici';
import { tooDeepAt } from '../../shared/json-depth.js';
import type { AgentClient, AgentTarget } from '../domain/agent-client.js';
import { relayAnswer } from './relay-answer.js';

export const ANSWER_LIMIT_BYTES = 1024 * 1024;
/** TLS sessions kept for resuming, by server name: the most machines a board holds. */
const SESSIONS_KEPT = 20_000;

class TooLarge extends Error {}

/**
 * An AgentClient over pooled undici dispatchers, with a time-out and a body cap per call.
 * Polls and relays have a dispatcher each: a poll is one request per machine per sweep, so one
 * connection per machine (an undici Client, whose queue is a plain array) is enough, where a
 * Pool per machine allocates a 2,048-slot queue that 10,000 machines turn into ~150 MB of
 * garbage per sweep. Relays keep a small pool per machine, so a relay never waits behind a
 * slow poll of the same machine.
 */
export function createAgentClient(options: { connectTimeoutMs: number }): AgentClient {
  const common = { pipelining: 1, keepAliveTimeout: 30_000, keepAliveMaxTimeout: 60_000 };
  // A pair of dispatchers per CA (TLS trust is per connection pool); the key '' is the system's
  // CAs. The client lives until the next reload that changes a CA, so the map stays small.
  const pools = new Map<string, { polls: Agent; relays: Agent }>();
  const poolsFor = (ca: string | null | undefined): { polls: Agent; relays: Agent } => {
    const id = ca ?? '';
    let found = pools.get(id);
    if (found === undefined) {
      // One connector for all the machines behind these dispatchers. Given options instead,
      // undici builds a connector per origin's Client, each with a TLS session cache of its own
      // (a Map and a FinalizationRegistry): 10,000 of them in a cold sweep, for one session each.
      // Sessions are kept by server name, as many as the board may hold machines.
      const connect = buildConnector({
        timeout: options.connectTimeoutMs,
        maxCachedSessions: SESSIONS_KEPT,
        ...(ca ? { ca } : {}),
      });
      found = {
        polls: new Agent({ ...common, connect, connections: 1 }),
        relays: new Agent({ ...common, connect, connections: 4 }),
      };
      pools.set(id, found);
    }
    return found;
  };

  /**
   * One exchange through undici's dispatch API: a handler object per call, the body gathered
   * into one buffer of its own, and one plain timer for the whole call. undici's `request()`
   * wraps the same dispatch in an AbortSignal, a Readable and an async iterator; without them a
   * poll costs ~35 % less of the poller's CPU (205 → 130 µs against 10,000 simulated agents).
   */
  function call(
    url: string,
    method: 'GET' | 'POST' | 'PUT',
    target: AgentTarget,
    timeoutMs: number,
    body?: string,
  ): Promise<{ status: number; bytes: Buffer }> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (target.key !== null) headers.authorization = `Bearer ${target.key}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const pool = poolsFor(target.ca);
    const dispatcher = method === 'GET' ? pool.polls : pool.relays;
    const parsed = new URL(url);
    return new Promise((resolve, reject) => {
      let controller: { abort(reason: Error): void } | null = null;
      let expired: Error | null = null;
      let settled = false;
      let status = 0;
      let size = 0;
      const chunks: Buffer[] = [];
      const fail = (error: Error): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        reject(error);
      };
      const stop = (error: Error): void => {
        // The exchange is dropped; what undici says about it afterwards is not heard.
        controller?.abort(error);
        fail(error);
      };
      const timer = setTimeout(() => {
        expired = new DOMException(`no answer within ${timeoutMs} ms`, 'TimeoutError');
        stop(expired);
      }, timeoutMs);
      dispatcher.dispatch(
        {
          origin: parsed.origin,
          path: `${parsed.pathname}${parsed.search}`,
          method,
          headers,
          ...(body === undefined ? {} : { body }),
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
        },
        {
          onRequestStart(c) {
            controller = c;
            // Its time ran out while it waited for a connection.
            if (expired !== null) c.abort(expired);
          },
          onResponseStart(_c, statusCode, responseHeaders) {
            status = statusCode;
            if (Number(responseHeaders['content-length'] ?? '0') > ANSWER_LIMIT_BYTES)
              stop(new TooLarge());
          },
          onResponseData(_c, chunk) {
            size += chunk.length;
            if (size > ANSWER_LIMIT_BYTES) stop(new TooLarge());
            else chunks.push(chunk);
          },
          onResponseEnd() {
            if (settled) return;
            settled = true;
            clearTimeout(timer);
            // A buffer of its own (not a slice of Node's shared pool), so it can be moved.
            const bytes = Buffer.allocUnsafeSlow(size);
            let at = 0;
            for (const chunk of chunks) at += chunk.copy(bytes, at);
            resolve({ status, bytes });
          },
          onResponseError(_c, error) {
            fail(error);
          },
        },
      );
    });
  }

  /** A POST (or a PUT of `body`) to the agent, its answer checked as a relayed action's is. */
  async function post(url: string, target: AgentTarget, timeoutMs: number, body?: string) {
    try {
      const method = body === undefined ? 'POST' : 'PUT';
      const { status, bytes } = await call(url, method, target, timeoutMs, body);
      return relayAnswer(status, bytes.toString('utf8'));
    } catch (error) {
      const message = describeFailure(error, timeoutMs);
      return isTimeout(error)
        ? { kind: 'timeout' as const, error: message }
        : { kind: 'unreachable' as const, error: message };
    }
  }

  return {
    async overview(target, timeoutMs) {
      try {
        const { status, bytes } = await call(
          `${target.url}/api/overview`,
          'GET',
          target,
          timeoutMs,
        );
        const text = bytes.toString('utf8');
        if (status < 200 || status > 299)
          return { ok: false, error: `the agent answered HTTP ${status}` };
        if (tooDeepAt(text) >= 0) return { ok: false, error: 'the answer is nested too deeply' };
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          return { ok: false, error: 'the answer is not JSON' };
        }
        if (body === null || typeof body !== 'object' || Array.isArray(body)) {
          return { ok: false, error: 'the answer is not an overview object' };
        }
        // The text itself is kept (JSON.parse has checked it): no stringify of it again.
        // Its bytes too, when they are exactly that text (valid UTF-8): no encoding it again.
        return {
          ok: true,
          overview: body as Record<string, unknown>,
          json: text,
          ...(isUtf8(bytes) ? { jsonBytes: bytes } : {}),
        };
      } catch (error) {
        return { ok: false, error: describeFailure(error, timeoutMs) };
      }
    },

    relay(target, what, action, timeoutMs) {
      const url = `${target.url}/api/do/${encodeURIComponent(what)}/${encodeURIComponent(action)}`;
      return post(url, target, timeoutMs);
    },

    requestUpdate(target, timeoutMs) {
      return post(`${target.url}/api/update`, target, timeoutMs);
    },

    handChecks(target, checks, timeoutMs) {
      return post(`${target.url}/api/checks`, target, timeoutMs, JSON.stringify(checks));
    },

    close: async () => {
      await Promise.all([...pools.values()].flatMap((p) => [p.polls.close(), p.relays.close()]));
    },
  };
}

function isTimeout(error: unknown): boolean {
  const e = error as { name?: string; code?: string };
  return (
    e.name === 'TimeoutError' ||
    e.name === 'AbortError' ||
    error instanceof undiciErrors.HeadersTimeoutError ||
    error instanceof undiciErrors.BodyTimeoutError ||
    error instanceof undiciErrors.ConnectTimeoutError
  );
}

/** A short, secret-free sentence for why a call failed. */
export function describeFailure(error: unknown, timeoutMs: number): string {
  if (error instanceof TooLarge)
    return `the answer is over ${ANSWER_LIMIT_BYTES / 1024 / 1024} MiB`;
  if (isTimeout(error)) return `no answer within ${timeoutMs / 1000} s`;
  const malformed = malformedAnswer(error);
  if (malformed !== null) return malformed;
  const e = error as { code?: string; cause?: { code?: string }; message?: string };
  const code = e.code ?? e.cause?.code;
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return 'connection reset';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host not found';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'host unreachable';
    default:
      if (code !== undefined && /CERT|TLS|SSL|SIGNATURE/.test(code)) {
        return `the agent's certificate is not trusted (${code}); see ca in docs/config.md`;
      }
      return code !== undefined ? `cannot reach the agent (${code})` : 'cannot reach the agent';
  }
}

/** Why an answer was not HTTP at all (undici's parser refused it), or null for other failures. */
function malformedAnswer(error: unknown): string | null {
  const e = error as { name?: string; code?: string; message?: string };
  if (e.name === 'HTTPParserError') {
    // undici's message names the fault, e.g. "… (Invalid status code)"; it holds no secret.
    const why = /\(([^)]{1,80})\)\s*$/.exec(e.message ?? '')?.[1] ?? 'malformed';
    return `the agent's answer is not valid HTTP: ${why}`;
  }
  // undici asserts a status of at least 100 instead of refusing it as a parse error.
  if (e.code === 'ERR_ASSERTION') return "the agent's answer is not valid HTTP: bad status line";
  if (e.code === 'UND_ERR_SOCKET' && /upgrade/i.test(e.message ?? '')) {
    return "the agent's answer is not valid HTTP: it switched protocols";
  }
  return null;
}
