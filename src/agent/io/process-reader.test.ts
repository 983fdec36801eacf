import { cpSync, mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../../harness/root.js';
import { tempDir } from '../../../test/helpers/tmp.js';
import type { ProcessEntry } from '../domain/processes.js';
import type { SourceRead } from '../domain/source-watch.js';
import { nodeProcessReader } from './process-reader.js';

const FIXTURE = join(ROOT, 'test/fixtures/proc');
const PASSWD = join(ROOT, 'test/fixtures/passwd');

function value(answer: SourceRead<ProcessEntry[]>): ProcessEntry[] {
  if (answer.kind !== 'ok') throw new Error(`expected ok, got ${JSON.stringify(answer)}`);
  return answer.value;
}

describe('nodeProcessReader on a recorded /proc tree', () => {
  const dir = tempDir('panoptes-proc-');
  afterAll(() => dir.cleanup());

  it('lists each process with its name, user, CPU share and resident memory', async () => {
    const reader = nodeProcessReader({ procRoot: FIXTURE, passwd: PASSWD, cpus: () => 2 });
    expect(value(await reader.read(5000))).toEqual([
      { pid: 24256, name: 'node', user: 'nobody', cpu: 0.4738, mem: 109072 * 1024 },
      { pid: 24260, name: 'my) (odd name', user: 'root', cpu: 0.0056, mem: 13504 * 1024 },
      { pid: 1, name: 'process_api', user: 'root', cpu: 0.0032, mem: 16204 * 1024 },
      { pid: 2, name: 'kthreadd', user: 'root', cpu: 0, mem: 0 },
      // uid 4321 has no name in the passwd file: the uid as text.
      { pid: 24255, name: 'sleep', user: '4321', cpu: 0, mem: 1816 * 1024 },
    ]);
  });

  it('never shows the arguments, which the tree holds for 24260 (--password=…)', async () => {
    const reader = nodeProcessReader({ procRoot: FIXTURE, passwd: PASSWD, cpus: () => 2 });
    const text = JSON.stringify(value(await reader.read(5000)));
    expect(text).not.toContain('hunter2');
    expect(text).not.toContain('python');
  });

  it('skips processes that end while they are read; the second read measures the interval', async () => {
    const proc = join(dir.path, 'proc');
    cpSync(FIXTURE, proc, { recursive: true });
    // Listed, then gone before its stat is read; and one gone between its stat and status.
    mkdirSync(join(proc, '31000'));
    cpSync(join(FIXTURE, '24255'), join(proc, '31001'), { recursive: true });
    writeFileSync(
      join(proc, '31001/stat'),
      '31001 (gone) S 1 1 1 0 -1 0 0 0 0 0 900 0 0 0 20 0 1 0 967000 1 99999\n',
    );
    rmSync(join(proc, '31001/status'));
    const reader = nodeProcessReader({ procRoot: proc, passwd: PASSWD, cpus: () => 2 });
    const first = value(await reader.read(5000));
    expect(first.map((p) => p.pid)).toEqual([24256, 24260, 1, 2, 24255]);

    // One second later node has used 50 more ticks: a quarter of 2 CPUs.
    writeFileSync(join(proc, 'uptime'), '9675.68 6388.92\n');
    const node = `${join(proc, '24256/stat')}`;
    writeFileSync(
      node,
      '24256 (node) R 24252 24252 15449 0 -1 4194560 18603 0 4 0 290 13 0 0 20 0 7 0 967201 1079726080 27235 18446744073709551615 11988992 39846385 140726748230112 0 0 0 0 16781312 17922 0 0 0 17 0 0 0 0 0 0 90418888 90555584 331235328 140726748236405 140726748236526 140726748236526 140726748237802 0\n',
    );
    const second = value(await reader.read(5000));
    expect(second.find((p) => p.pid === 24256)?.cpu).toBe(0.25);
    expect(second.find((p) => p.pid === 24260)?.cpu).toBe(0);
  });

  it('reads the passwd file again when it changes, not before', async () => {
    const passwd = dir.write('passwd', 'root:x:0:0::/root:/bin/sh\n');
    utimesSync(passwd, 1000, 1000);
    const reader = nodeProcessReader({ procRoot: FIXTURE, passwd, cpus: () => 2 });
    const user = async (pid: number) =>
      value(await reader.read(5000)).find((p) => p.pid === pid)?.user;
    expect(await user(24255)).toBe('4321');
    writeFileSync(passwd, 'root:x:0:0::/root:/bin/sh\nbuilder:x:4321:4321::/:/bin/sh\n');
    utimesSync(passwd, 1000, 1000);
    // Same modification time: the cached names hold.
    expect(await user(24255)).toBe('4321');
    utimesSync(passwd, 2000, 2000);
    expect(await user(24255)).toBe('builder');
  });

  it('no proc filesystem: absent', async () => {
    const reader = nodeProcessReader({ procRoot: join(dir.path, 'nowhere') });
    expect(await reader.read(5000)).toEqual({ kind: 'absent' });
  });
});

describe('nodeProcessReader on the real /proc', () => {
  it('finds this test process by its pid, as node (or node-MainThread), under its user', async () => {
    const reader = nodeProcessReader();
    // Busy for a moment, so that it is among the busiest by CPU whatever else runs here.
    await reader.read(5000);
    const end = Date.now() + 300;
    while (Date.now() < end);
    const list = value(await reader.read(5000));
    const self = list.find((p) => p.pid === process.pid);
    // Node 20 leaves the kernel's name `node`; Node 24 and later name the main thread
    // `node-MainThread`, and the process's comm is its main thread's.
    expect(self?.name).toMatch(/^node(-MainThread)?$/);
    expect(self?.user).toBe(userInfo().username);
    expect(self?.cpu).toBeGreaterThan(0);
    expect(self?.mem).toBeGreaterThan(10 * 1024 * 1024);
    expect(list.length).toBeGreaterThanOrEqual(10);
    expect(list.length).toBeLessThanOrEqual(20);
  });
});
