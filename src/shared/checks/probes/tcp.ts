import { connect, isIP } from 'node:net';
import type { Observation, Probe } from '../observation.js';
import { fixedLookup, guardedAddresses, networkError, ProbeError } from './resolve-target.js';

/** `host:port` or `[v6]:port` (a `tcp://` prefix is allowed): the host and the port. */
export function hostPort(target: string): { host: string; port: number } {
  const bare = target.replace(/^tcp:\/\//i, '');
  const m = /^\[([^\]]+)\]:(\d+)$/.exec(bare) ?? /^([^:[\]]+):(\d+)$/.exec(bare);
  const port = Number(m?.[2]);
  if (m === null || !Number.isInteger(port) || port < 1 || port > 65_535) {
    throw new ProbeError(`target must be host:port or [v6]:port, not ${target}`);
  }
  const host = m[1] ?? '';
  if (bare.startsWith('[') && isIP(host) !== 6)
    throw new ProbeError(`not an IPv6 address: ${host}`);
  return { host, port };
}

function reasonOf(signal: AbortSignal): string {
  return signal.reason instanceof Error ? signal.reason.message : 'timed out';
}

/** The `tcp` check type: connected or not (the connection is closed at once). */
export const tcpProbe: Probe = async (check, options) => {
  const started = performance.now();
  const elapsed = () => performance.now() - started;
  let where = check.target;
  try {
    const { host, port } = hostPort(check.target);
    where = `${host}:${port}`;
    const checked = await guardedAddresses(host, options.guard);
    return await new Promise<Observation>((resolve) => {
      const socket = connect({
        host,
        port,
        autoSelectFamily: true,
        ...(checked === null ? {} : { lookup: fixedLookup(checked) }),
      });
      const done = (o: Observation) => {
        options.signal.removeEventListener('abort', onAbort);
        socket.destroy();
        resolve(o);
      };
      const onAbort = () =>
        done({ connected: false, responseTimeMs: elapsed(), error: reasonOf(options.signal) });
      if (options.signal.aborted) return onAbort();
      options.signal.addEventListener('abort', onAbort, { once: true });
      socket.once('connect', () => {
        const ip = socket.remoteAddress;
        done({ connected: true, responseTimeMs: elapsed(), ...(ip === undefined ? {} : { ip }) });
      });
      socket.on('error', (error) =>
        done({ connected: false, responseTimeMs: elapsed(), error: networkError(error, where) }),
      );
    });
  } catch (error) {
    return { connected: false, responseTimeMs: elapsed(), error: networkError(error, where) };
  }
};
