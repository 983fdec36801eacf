import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { buildSync } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TempDir, tempDir } from '../../../../test/helpers/tmp.js';
import type { Observation } from '../observation.js';
import type { HandedCheck, RunType } from '../wire.js';
import { icmpProbe, NO_ICMP_SOCKET, NO_PING } from './icmp.js';

const NOBODY = '65534';

function icmpCheck(target: string, timeout_s = 2): HandedCheck {
  return handed({ name: 'ping', type: 'icmp', target, interval_s: 60, timeout_s, conditions: [] });
}

function options(timeoutMs = 3000, guard?: (address: string) => string | null) {
  return {
    signal: AbortSignal.timeout(timeoutMs),
    now: () => new Date(),
    ...(guard ? { guard } : {}),
  };
}

function succeeds(command: string, args: string[]): boolean {
  return spawnSync(command, args, { stdio: 'ignore' }).status === 0;
}

/** New network namespaces and a switch to `nobody` need root (or a container that allows them). */
const isolation =
  process.getuid?.() !== 0
    ? 'not root: cannot make a network namespace or become nobody'
    : !succeeds('unshare', ['-n', 'true'])
      ? 'this machine cannot make network namespaces (unshare -n failed)'
      : !succeeds('setpriv', ['--version']) || !succeeds('ip', ['-V'])
        ? 'setpriv (util-linux) or ip (iproute2) is missing'
        : null;
// Node from `npx node@…` lives under /root, which nobody may not enter: those runs cannot be
// made as nobody with this Node (the same runs on the machine's own Node test it).
const asNobody =
  isolation ??
  (succeeds('setpriv', [
    `--reuid=${NOBODY}`,
    `--regid=${NOBODY}`,
    '--clear-groups',
    'env',
    process.execPath,
    '--version',
  ])
    ? null
    : `nobody may not run this Node (${process.execPath})`);
const hasV6Loopback = succeeds('ping', ['-6', '-n', '-c', '1', '-W', '1', '::1']);

describe('icmp probe on this machine', () => {
  it('pings 127.0.0.1: a reply, its round-trip time, the address', async () => {
    const seen = await icmpProbe(icmpCheck('127.0.0.1'), options());
    expect(seen.error).toBeUndefined();
    expect(seen).toMatchObject({ connected: true, ip: '127.0.0.1' });
    expect(seen.responseTimeMs).toBeGreaterThan(0);
    expect(seen.responseTimeMs).toBeLessThan(1000);
  });

  it.skipIf(!hasV6Loopback)('pings ::1 with ping -6 (a bracketed address too)', async () => {
    const seen = await icmpProbe(icmpCheck('[::1]'), options());
    expect(seen).toMatchObject({ connected: true, ip: '::1' });
  });

  it('asks the guard for the resolved address and does not ping when it refuses', async () => {
    const asked: string[] = [];
    const guard = (address: string) => {
      asked.push(address);
      return 'refused: private address';
    };
    const seen = await icmpProbe(icmpCheck('localhost'), options(3000, guard));
    expect(seen).toMatchObject({ connected: false, error: 'refused: private address' });
    expect(asked).toHaveLength(1);
    expect(['127.0.0.1', '::1']).toContain(asked[0]);
  });
});

describe('icmp probe where ping is missing or may not open a socket', () => {
  let dir: TempDir;
  let runner = '';
  let emptyBin = '';
  let capless = '';

  beforeAll(() => {
    dir = tempDir();
    // nobody must read everything it runs.
    chmodSync(dir.path, 0o755);
    buildSync({
      entryPoints: [join(import.meta.dirname, 'icmp.ts')],
      bundle: true,
      platform: 'node',
      format: 'esm',
      outfile: join(dir.path, 'icmp.mjs'),
      logLevel: 'error',
    });
    runner = dir.write(
      'run.mjs',
      [
        "import { icmpProbe } from './icmp.mjs';",
        'const [check, ms] = [JSON.parse(process.argv[2]), Number(process.argv[3])];',
        'const seen = await icmpProbe(check, { signal: AbortSignal.timeout(ms), now: () => new Date() });',
        'process.stdout.write(JSON.stringify(seen));',
      ].join('\n'),
    );
    emptyBin = join(dir.path, 'empty-bin');
    mkdirSync(emptyBin, { mode: 0o755 });
    // A copy loses the file capability (cap_net_raw) the installed ping has.
    capless = join(dir.path, 'capless-bin');
    mkdirSync(capless, { mode: 0o755 });
    const pingPath = execFileSync('sh', ['-c', 'command -v ping'], { encoding: 'utf8' }).trim();
    copyFileSync(pingPath, join(capless, 'ping'));
    chmodSync(join(capless, 'ping'), 0o755);
  });
  afterAll(() => dir.cleanup());

  /** Runs the probe in a child node: optionally in a new network namespace, optionally as nobody. */
  function probeIn(
    check: HandedCheck,
    place: {
      path: string;
      namespace?: string;
      pingGroupRange?: string;
      nobody?: boolean;
      abortMs?: number;
    },
  ): Observation {
    const node = [process.execPath, runner, JSON.stringify(check), String(place.abortMs ?? 5000)];
    const user = place.nobody
      ? ['setpriv', `--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups']
      : [];
    const inner = [...user, 'env', `PATH=${place.path}`, ...node];
    const command =
      place.namespace === undefined
        ? inner
        : [
            'unshare',
            '-n',
            '--',
            'sh',
            '-c',
            // Only this namespace's loopback and sysctl change; the machine's stay as they are.
            `ip link set lo up && ${place.namespace} sysctl -qw net.ipv4.ping_group_range="$1" && shift && exec "$@"`,
            'sh',
            place.pingGroupRange ?? '1 0',
            ...inner,
          ];
    const out = execFileSync(command[0] ?? '', command.slice(1), {
      cwd: dir.path,
      encoding: 'utf8',
    });
    return JSON.parse(out) as Observation;
  }

  it('says there is no ping when none is on PATH', () => {
    const seen = probeIn(icmpCheck('127.0.0.1'), { path: emptyBin });
    expect(seen).toMatchObject({ connected: false, error: NO_PING, ip: '127.0.0.1' });
  });

  it.skipIf(asNobody !== null)(
    `says in one line that ICMP is not allowed: nobody, ping_group_range "1 0", ping without CAP_NET_RAW${asNobody ? ` (skipped: ${asNobody})` : ''}`,
    () => {
      const seen = probeIn(icmpCheck('127.0.0.1'), {
        path: capless,
        namespace: '',
        pingGroupRange: '1 0',
        nobody: true,
      });
      expect(seen).toMatchObject({ connected: false, error: NO_ICMP_SOCKET });
      expect(seen.error).not.toContain('\n');
    },
  );

  it.skipIf(asNobody !== null)(
    'pings unprivileged where the kernel allows it: nobody, ping_group_range "0 2147483647", no CAP_NET_RAW',
    () => {
      const seen = probeIn(icmpCheck('127.0.0.1'), {
        path: capless,
        namespace: '',
        pingGroupRange: '0 2147483647',
        nobody: true,
      });
      expect(seen.error).toBeUndefined();
      expect(seen).toMatchObject({ connected: true, ip: '127.0.0.1' });
      expect(seen.responseTimeMs).toBeGreaterThan(0);
    },
  );

  it.skipIf(isolation !== null)(
    'says no reply came within the timeout, and times out at the signal',
    () => {
      // A route into loopback for an address nobody holds: the request leaves and nothing answers.
      const silent = 'ip route add 10.99.0.0/24 dev lo &&';
      const seen = probeIn(icmpCheck('10.99.0.2', 1), {
        path: capless,
        namespace: silent,
        pingGroupRange: '0 2147483647',
      });
      expect(seen).toMatchObject({
        connected: false,
        error: 'icmp: no reply within 1s',
        ip: '10.99.0.2',
      });

      const started = Date.now();
      const cut = probeIn(icmpCheck('10.99.0.2', 5), {
        path: capless,
        namespace: silent,
        pingGroupRange: '0 2147483647',
        abortMs: 300,
      });
      expect(cut).toMatchObject({ connected: false, error: 'timed out after 5s' });
      expect(Date.now() - started).toBeLessThan(3000);
    },
  );

  it.skipIf(isolation !== null)("passes on ping's own reason on one line (no route)", () => {
    const seen = probeIn(icmpCheck('192.0.2.1'), {
      path: capless,
      namespace: '',
      pingGroupRange: '0 2147483647',
    });
    expect(seen).toMatchObject({
      connected: false,
      error: 'icmp: connect: Network is unreachable',
    });
  });
});

/** A check as handed to a runner (HandedCheck's `type` reads as never under the test tsconfig). */
function handed(check: Omit<HandedCheck, 'type'> & { type: RunType }): HandedCheck {
  return check as HandedCheck;
}
