import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import {
  NVME0_DISK,
  RECORDED_DISKS,
  SDC_FAILING_DISK,
  type StandInSmartctl,
  standInSmartctlEnv,
} from '../../../test/helpers/machine-sources.js';
import { tempDir } from '../../../test/helpers/tmp.js';
import { nodeSmartReader } from './smart-probe.js';

/** A reader finding the stand-in smartctl (behaving as `smartctl`) first on its PATH. */
const reader = (smartctl: StandInSmartctl = {}) =>
  nodeSmartReader({ ...process.env, ...standInSmartctlEnv(smartctl) });

describe('nodeSmartReader with the stand-in smartctl on PATH', () => {
  const dir = tempDir('panoptes-smart-');
  afterAll(() => dir.cleanup());

  it('scans, then reads each disk with the type the scan found, one after the other', async () => {
    const calls = `${dir.path}/calls`;
    expect(await reader({ calls }).read(5000)).toEqual({ kind: 'ok', value: RECORDED_DISKS });
    const lines = readFileSync(calls, 'utf8').trim().split('\n');
    expect(lines.map((l) => l.split(' ').slice(2).join(' '))).toEqual([
      '--scan-open --json',
      '-a --json -n standby -d nvme /dev/nvme0',
      '-a --json -n standby -d sat /dev/sdb',
      '-a --json -n standby -d usbjmicron /dev/sdc',
    ]);
    const starts = lines.map((l) => Number(l.split(' ')[1]));
    expect([...starts].sort((a, b) => a - b)).toEqual(starts);
  });

  it('a disk in standby is left out (not woken, not an error)', async () => {
    expect(await reader({ standby: '/dev/sdb' }).read(5000)).toEqual({
      kind: 'ok',
      value: [NVME0_DISK, SDC_FAILING_DISK],
    });
  });

  it('no disk could be read (no rights): failed, saying why', async () => {
    expect(await reader({ denied: true }).read(5000)).toEqual({
      kind: 'failed',
      reason:
        'smartctl could not read /dev/nvme0: Smartctl open device: /dev/loop0 [SAT] failed: Permission denied',
    });
  });

  it('a smartctl that never answers: failed after the time-out, its process ended', async () => {
    const calls = `${dir.path}/hang-calls`;
    const started = Date.now();
    expect(await reader({ hang: true, calls }).read(300)).toEqual({
      kind: 'failed',
      reason: 'smartctl did not answer within 300 ms',
    });
    expect(Date.now() - started).toBeLessThan(2000);
    const pid = Number(readFileSync(calls, 'utf8').split(' ')[0]);
    // The stand-in's whole process group was killed.
    await expect.poll(() => alive(pid)).toBe(false);
  });

  it('no smartctl on PATH: absent', async () => {
    expect(await nodeSmartReader({ ...process.env, PATH: dir.path }).read(5000)).toEqual({
      kind: 'absent',
    });
  });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
