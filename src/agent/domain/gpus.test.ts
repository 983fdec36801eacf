import { describe, expect, it } from 'vitest';
import { gpuFixture, H100_LOAD } from '../../../harness/gpu.js';
import { GpuParseError, parseNvidiaCsv, parseRocmJson } from './gpus.js';

const MIB = 1024 * 1024;

/** What `--format=csv,noheader,nounits` prints for a recorded `--format=csv` capture. */
function noUnits(csv: string): string {
  return `${csv
    .trimEnd()
    .split('\n')
    .slice(1)
    .map((l) => l.replace(/ (%|MiB|W)(?=,|$)/g, ''))
    .join('\n')}\n`;
}

describe('parseNvidiaCsv', () => {
  it('reads the recorded H100 under load, without units (the agent query) and with', () => {
    const csv = gpuFixture('captures/h100-load.csv');
    expect(parseNvidiaCsv(noUnits(csv))).toEqual([H100_LOAD]);
    expect(parseNvidiaCsv(csv)).toEqual([H100_LOAD]);
  });

  it('reads two GPUs, and a share from a percentage', () => {
    const gpus = parseNvidiaCsv(noUnits(gpuFixture('captures/two-gpus-composed.csv')));
    expect(gpus.map((g) => [g.index, g.name, g.util])).toEqual([
      [0, 'NVIDIA H100 80GB HBM3', 1],
      [1, 'NVIDIA L40S', 0.09],
    ]);
    expect(gpus[1]?.mem_total).toBe(46068 * MIB);
  });

  it('reads [N/A] and [Not Supported] as null, with and without units', () => {
    const csv = gpuFixture('captures/h100-mig-idle.csv');
    const mig = { ...H100_LOAD, util: null, mem_used: 59 * MIB, temp_c: 42, power_w: 71.15 };
    expect(parseNvidiaCsv(csv)).toEqual([mig]);
    expect(parseNvidiaCsv(noUnits(csv))).toEqual([mig]);
    expect(
      parseNvidiaCsv('3, Tesla K80, [Not Supported], 0 MiB, 11441 MiB, [N/A], [Unknown Error]\n'),
    ).toEqual([
      {
        index: 3,
        name: 'Tesla K80',
        util: null,
        mem_used: 0,
        mem_total: 11441 * MIB,
        temp_c: null,
        power_w: null,
      },
    ]);
  });

  it('keeps a name with a comma whole, and cleans control characters out of it', () => {
    const [gpu] = parseNvidiaCsv('1, Odd, Name\u001b[2J, 5, 1, 2, 30, 40.5\n');
    expect(gpu).toMatchObject({ index: 1, name: 'Odd, Name\ufffd[2J', util: 0.05, power_w: 40.5 });
  });

  it('answers no GPUs for empty output, and refuses what is not its CSV', () => {
    expect(parseNvidiaCsv('')).toEqual([]);
    expect(() => parseNvidiaCsv('No devices were found\n')).toThrow(GpuParseError);
    expect(() => parseNvidiaCsv('0, X, lots, 1, 2, 3, 4\n')).toThrow(GpuParseError);
    expect(() => parseNvidiaCsv('x, X, 1, 1, 2, 3, 4\n')).toThrow(GpuParseError);
  });

  it('keeps at most 64 GPUs and clamps shares and negative values', () => {
    const lines = Array.from({ length: 70 }, (_, i) => `${i}, G, 150, -5, 10, -3, 20`).join('\n');
    const gpus = parseNvidiaCsv(lines);
    expect(gpus).toHaveLength(64);
    expect(gpus[0]).toMatchObject({ util: 1, mem_used: 0, temp_c: -3 });
  });
});

describe('parseRocmJson', () => {
  it('reads the recorded four MI100s (ROCm 6.0.2)', () => {
    const gpus = parseRocmJson(gpuFixture('rocm/mi100_rocm602.json'));
    expect(gpus).toHaveLength(4);
    expect(gpus[0]).toEqual({
      index: 0,
      name: 'Arcturus GL-XL [Instinct MI100]',
      util: 0,
      mem_used: 6750208,
      mem_total: 34342961152,
      temp_c: 53,
      power_w: 36,
    });
    expect(gpus.map((g) => [g.index, g.temp_c, g.power_w])).toEqual([
      [0, 53, 36],
      [1, 55, 44],
      [2, 54, 43],
      [3, 51, 39],
    ]);
  });

  it('reads the recorded RX 6700 XT (ROCm 6.1.2), after a warning line', () => {
    const json = `WARNING: AMD GPU device(s) is/are in a low-power state.\n${gpuFixture('rocm/rx6700xt_rocm612.json')}`;
    expect(parseRocmJson(json)).toEqual([
      {
        index: 0,
        name: 'Navi 22 [Radeon RX 6700/6700 XT / 6800M]',
        util: 0,
        mem_used: 1572745216,
        mem_total: 12868124672,
        temp_c: 45,
        power_w: 6,
      },
    ]);
  });

  it('reads a secondary die\'s "N/A (Secondary die)" power and a junction-only sensor as null / junction', () => {
    const [gpu] = parseRocmJson(
      JSON.stringify({
        card1: {
          'Card Series': 'AMD INSTINCT MI250 (MCM) OAM AC MBA',
          'Average Graphics Package Power (W)': 'N/A (Secondary die)',
          'Temperature (Sensor junction) (C)': '60.0',
          'GPU use (%)': '99',
        },
      }),
    );
    expect(gpu).toEqual({
      index: 1,
      name: 'AMD INSTINCT MI250 (MCM) OAM AC MBA',
      util: 0.99,
      mem_used: null,
      mem_total: null,
      temp_c: 60,
      power_w: null,
    });
  });

  it('refuses what is not its JSON', () => {
    expect(() => parseRocmJson('ERROR: GPU[0] : Unable to read\n')).toThrow(GpuParseError);
    expect(() => parseRocmJson('{"card0": ')).toThrow(GpuParseError);
    expect(() => parseRocmJson('[1]')).toThrow(GpuParseError);
    expect(parseRocmJson('{"system": {"Driver version": "6.3.6"}}')).toEqual([]);
  });
});
