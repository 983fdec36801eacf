import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  NVME0_DISK as NVME,
  SDB_DISK as SDB,
  SDC_FAILING_DISK as SDC,
  SMARTCTL_FIXTURE,
} from '../../../test/helpers/machine-sources.js';
import {
  deviceArgs,
  parseDeviceAnswer,
  parseScan,
  SmartParseError,
  smartFromAnswers,
  unreadable,
} from './smart.js';

/** Real smartctl JSON (test/fixtures/smartctl, see its README). */
const recorded = (name: string) => readFileSync(join(SMARTCTL_FIXTURE, name), 'utf8');

describe('unreadable: the exit status bit mask', () => {
  it('bits 0 and 1 mean no answer; the others come with one', () => {
    expect(unreadable(0)).toBe(false);
    expect(unreadable(1)).toBe(true); // the command line did not parse
    expect(unreadable(2)).toBe(true); // the device could not be opened
    expect(unreadable(3)).toBe(true);
    expect(unreadable(4)).toBe(false); // a SMART command failed
    expect(unreadable(8)).toBe(false); // DISK FAILING
    expect(unreadable(216)).toBe(false); // 8 + 16 + 64 + 128
    expect(unreadable(218)).toBe(true);
  });
});

describe('parseScan', () => {
  it('lists each disk with the type smartctl found for it', () => {
    const devices = parseScan(recorded('scan-open.json'));
    expect(devices).toEqual([
      { device: '/dev/nvme0', name: '/dev/nvme0', type: 'nvme', openError: null },
      { device: '/dev/sdb', name: '/dev/sdb', type: 'sat', openError: null },
      { device: '/dev/sdc', name: '/dev/sdc', type: 'usbjmicron', openError: null },
    ]);
    expect(devices.map(deviceArgs)[1]).toEqual([
      '-a',
      '--json',
      '-n',
      'standby',
      '-d',
      'sat',
      '/dev/sdb',
    ]);
  });

  it('disks behind one controller go by their info name; an open error is kept', () => {
    const scan = JSON.stringify({
      devices: [
        {
          name: '/dev/bus/0',
          info_name: '/dev/bus/0 [megaraid_disk_00]',
          type: 'megaraid,0',
          protocol: 'SCSI',
        },
        {
          name: '/dev/bus/0',
          info_name: '/dev/bus/0 [megaraid_disk_01]',
          type: 'megaraid,1',
          protocol: 'SCSI',
        },
        {
          name: '/dev/sda',
          info_name: '/dev/sda',
          type: 'scsi',
          protocol: 'SCSI',
          open_error: '/dev/sda: Permission denied',
        },
      ],
    });
    expect(parseScan(scan)).toEqual([
      {
        device: '/dev/bus/0 [megaraid_disk_00]',
        name: '/dev/bus/0',
        type: 'megaraid,0',
        openError: null,
      },
      {
        device: '/dev/bus/0 [megaraid_disk_01]',
        name: '/dev/bus/0',
        type: 'megaraid,1',
        openError: null,
      },
      {
        device: '/dev/sda',
        name: '/dev/sda',
        type: 'scsi',
        openError: '/dev/sda: Permission denied',
      },
    ]);
  });

  it('no disk: no devices; what could be taken for an option is never passed on', () => {
    // smartctl 7.3 on a VM without disks prints no "devices" at all.
    expect(parseScan('{"json_format_version":[1,0],"smartctl":{"exit_status":0}}')).toEqual([]);
    const odd = JSON.stringify({
      devices: [
        { name: '-x', type: 'sat' },
        { name: '/dev/sdz', type: 'sat; rm' },
      ],
    });
    expect(parseScan(odd)).toEqual([]);
    expect(() => parseScan('# scan_smart_devices: failed')).toThrow(SmartParseError);
    expect(() => parseScan('{"devices": 3}')).toThrow(/not a list/);
  });

  it('at most 32 disks', () => {
    const many = {
      devices: Array.from({ length: 40 }, (_, i) => ({ name: `/dev/sd${i}`, type: 'sat' })),
    };
    expect(parseScan(JSON.stringify(many))).toHaveLength(32);
  });
});

describe('parseDeviceAnswer', () => {
  it('reads the recorded NVMe and SATA disks', () => {
    expect(parseDeviceAnswer('/dev/nvme0', recorded('nvme0.json'), 0)).toEqual({
      kind: 'ok',
      value: NVME,
    });
    expect(parseDeviceAnswer('/dev/sdb', recorded('sdb.json'), 0)).toEqual({
      kind: 'ok',
      value: SDB,
    });
  });

  it('a failing disk (exit status 216: bit 3 and others) still gives its whole answer', () => {
    expect(parseDeviceAnswer('/dev/sdc', recorded('sdc-failing.json'), 216)).toEqual({
      kind: 'ok',
      value: SDC,
    });
    // The same with exit status 8 alone ("DISK FAILING", nothing else).
    expect(parseDeviceAnswer('/dev/sdc', recorded('sdc-failing.json'), 8)).toMatchObject({
      kind: 'ok',
      value: { passed: false },
    });
  });

  it("a disk that could not be opened is unreadable, with smartctl's own reason", () => {
    expect(parseDeviceAnswer('/dev/sdb', recorded('open-denied.json'), 2)).toEqual({
      kind: 'unreadable',
      device: '/dev/sdb',
      reason: 'Smartctl open device: /dev/loop0 [SAT] failed: Permission denied',
    });
    expect(parseDeviceAnswer('/dev/sdb', 'not json', 2)).toEqual({
      kind: 'unreadable',
      device: '/dev/sdb',
      reason: 'exit status 2',
    });
    expect(parseDeviceAnswer('/dev/sdb', 'not json', 0)).toMatchObject({
      kind: 'unreadable',
      reason: 'smartctl -a /dev/sdb printed JSON that does not parse',
    });
  });

  it('a disk in standby is asleep, not unreadable', () => {
    expect(parseDeviceAnswer('/dev/sdb', recorded('sdb-standby.json'), 2)).toEqual({
      kind: 'asleep',
      device: '/dev/sdb',
    });
  });

  it('figures the answer lacks are null; text is one clean line', () => {
    const bare = JSON.stringify({ model_name: 'X\u001b[2J', smart_status: {}, temperature: {} });
    expect(parseDeviceAnswer('/dev/sdq', bare, 4)).toEqual({
      kind: 'ok',
      value: {
        device: '/dev/sdq',
        model: 'X\ufffd[2J',
        passed: null,
        temp_c: null,
        power_on_hours: null,
      },
    });
  });
});

describe('smartFromAnswers', () => {
  const ok = (value: typeof NVME) => ({ kind: 'ok' as const, value });
  const denied = (device: string) => ({
    kind: 'unreadable' as const,
    device,
    reason: 'Permission denied',
  });

  it('the disks read; an unreadable one beside them is left out', () => {
    expect(smartFromAnswers([ok(NVME), denied('/dev/sdb'), ok(SDC)])).toEqual({
      kind: 'ok',
      value: [NVME, SDC],
    });
  });

  it('disks but none readable: failed, naming the first and why; none at all: absent', () => {
    expect(smartFromAnswers([denied('/dev/sda'), denied('/dev/sdb')])).toEqual({
      kind: 'failed',
      reason: 'smartctl could not read /dev/sda: Permission denied',
    });
    expect(smartFromAnswers([])).toEqual({ kind: 'absent' });
  });

  it('every disk asleep: an empty list, not a failure', () => {
    expect(smartFromAnswers([{ kind: 'asleep', device: '/dev/sdb' }, denied('/dev/sdc')])).toEqual({
      kind: 'ok',
      value: [],
    });
  });
});
