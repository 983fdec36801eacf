import { execFile } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import type { Observation, Probe } from '../observation.js';
import { aborted, failed, resolveGuarded, timedOut } from './probe-address.js';

export const NO_PING = 'icmp: no ping on this machine (install iputils-ping)';
export const NO_ICMP_SOCKET =
  'icmp: the kernel allows no unprivileged ICMP socket for this user (net.ipv4.ping_group_range) and ping has no CAP_NET_RAW';

interface PingRun {
  /** The exit code, or the spawn error's code (ENOENT), or 'aborted'. */
  code: number | string;
  stdout: string;
  stderr: string;
}

/** Runs the system's ping (no shell: the address is an argument, never a command line). */
function ping(args: string[], signal: AbortSignal): Promise<PingRun> {
  return new Promise((resolve) => {
    execFile(
      'ping',
      args,
      // C locale: the output parsed below is ping's English one.
      { signal, env: { ...process.env, LC_ALL: 'C' }, maxBuffer: 64 * 1024, encoding: 'utf8' },
      (error, stdout, stderr) => {
        const code = !error
          ? 0
          : error.name === 'AbortError'
            ? 'aborted'
            : typeof error.code === 'number' || typeof error.code === 'string'
              ? error.code
              : 'unknown';
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** The round-trip time of the reply line ("64 bytes from …: icmp_seq=1 ttl=64 time=0.257 ms"). */
export function roundTripMs(stdout: string): number | null {
  const match = /bytes from .*time[=<]\s*([\d.]+)\s*ms/.exec(stdout);
  return match?.[1] === undefined ? null : Number(match[1]);
}

/** Why ping got no reply, on one line. */
function explain(run: PingRun, timeoutS: number): string {
  if (run.code === 'ENOENT') return NO_PING;
  if (/Operation not permitted|Permission denied|cap_net_raw/i.test(run.stderr))
    return NO_ICMP_SOCKET;
  // "From 10.0.0.1 icmp_seq=1 Destination Host Unreachable": the router's word is the reason.
  const from = /^From \S+ icmp_seq=\d+ (.+)$/m.exec(run.stdout);
  if (from?.[1]) return `icmp: ${from[1].trim()}`;
  const said = run.stderr.split('\n').find((line) => line.trim() !== '');
  if (said)
    return `icmp: ${said
      .replace(/^\S*ping: /, '')
      .trim()
      .slice(0, 200)}`;
  return run.code === 1 ? `icmp: no reply within ${timeoutS}s` : `icmp: ping failed (${run.code})`;
}

/** The `icmp` check type: one echo request through the system's ping (Node has no ICMP sockets). */
export const icmpProbe: Probe = async (check, options) => {
  const host = check.target.trim().replace(/^\[(.*)\]$/, '$1');
  const resolved = await Promise.race([
    resolveGuarded(host, options.guard),
    aborted(options.signal),
  ]);
  if (resolved === undefined) return failed(timedOut(check.timeout_s));
  if (typeof resolved === 'string') return failed(resolved);

  // -W takes whole seconds on older iputils; the signal still ends the run at the check's timeout.
  const waitS = String(Math.max(1, Math.ceil(check.timeout_s)));
  const args = [
    ...(resolved.family === 6 ? ['-6'] : []),
    '-n',
    '-c',
    '1',
    '-W',
    waitS,
    resolved.address,
  ];
  const started = performance.now();
  const run = await ping(args, options.signal);
  const elapsedMs = performance.now() - started;
  if (run.code === 'aborted') return failed(timedOut(check.timeout_s), elapsedMs, resolved.address);
  const rtt = roundTripMs(run.stdout);
  if (run.code === 0 && rtt !== null) {
    return { connected: true, responseTimeMs: rtt, ip: resolved.address } satisfies Observation;
  }
  return failed(explain(run, check.timeout_s), elapsedMs, resolved.address);
};
