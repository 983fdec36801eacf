import { describe, expect, it } from 'vitest';
import { celsius, type HwmonChip, temperatures } from './temps.js';

describe('celsius', () => {
  it('reads millidegrees as the kernel writes them', () => {
    expect(celsius('45000\n')).toBe(45);
    expect(celsius('35850\n')).toBe(35.85);
    expect(celsius('-5500\n')).toBe(-5.5);
    expect(celsius('')).toBeNull();
    expect(celsius('N/A\n')).toBeNull();
    expect(celsius('45.0\n')).toBeNull();
  });
});

describe('temperatures', () => {
  const coretemp: HwmonChip = {
    dir: 'hwmon2',
    name: 'coretemp\n',
    sensors: [
      { index: 2, label: 'Core 0\n', input: '43000\n' },
      { index: 1, label: 'Package id 0\n', input: '45000\n' },
    ],
  };

  it('labels each sensor "<chip> <label>", or "<chip> tempK" without a label, in hwmon order', () => {
    const acpitz: HwmonChip = {
      dir: 'hwmon0',
      name: 'acpitz\n',
      sensors: [{ index: 1, label: null, input: '27800\n' }],
    };
    expect(temperatures([coretemp, acpitz])).toEqual([
      { label: 'acpitz temp1', c: 27.8 },
      { label: 'coretemp Package id 0', c: 45 },
      { label: 'coretemp Core 0', c: 43 },
    ]);
  });

  it('hwmon10 after hwmon2; a chip without a name goes by its directory', () => {
    const late: HwmonChip = {
      dir: 'hwmon10',
      name: null,
      sensors: [{ index: 1, label: null, input: '30000' }],
    };
    expect(temperatures([late, coretemp]).map((t) => t.label)).toEqual([
      'coretemp Package id 0',
      'coretemp Core 0',
      'hwmon10 temp1',
    ]);
  });

  it('two sensors of one label (two NVMe drives) each carry their directory', () => {
    const nvme = (dir: string, input: string): HwmonChip => ({
      dir,
      name: 'nvme\n',
      sensors: [{ index: 1, label: 'Composite\n', input }],
    });
    expect(temperatures([nvme('hwmon3', '35850'), nvme('hwmon4', '41850')])).toEqual([
      { label: 'nvme Composite (hwmon3)', c: 35.85 },
      { label: 'nvme Composite (hwmon4)', c: 41.85 },
    ]);
  });

  it('at most 64 sensors; an unreadable value is left out; labels are one clean line', () => {
    const many: HwmonChip = {
      dir: 'hwmon0',
      name: 'it8686\n',
      sensors: Array.from({ length: 70 }, (_, i) => ({
        index: i + 1,
        label: null,
        input: `${i}000\n`,
      })),
    };
    const out = temperatures([many]);
    expect(out).toHaveLength(64);
    expect(out.at(-1)).toEqual({ label: 'it8686 temp64', c: 63 });
    const odd: HwmonChip = {
      dir: 'hwmon1',
      name: 'x\u001b[31m',
      sensors: [
        { index: 1, label: 'a\u202eb', input: '1000' },
        { index: 2, label: 'broken', input: 'garbage' },
      ],
    };
    expect(temperatures([odd])).toEqual([{ label: 'x\ufffd[31m a\ufffdb', c: 1 }]);
  });
});
