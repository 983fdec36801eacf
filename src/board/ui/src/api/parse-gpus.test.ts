import { describe, expect, it } from 'vitest';
import { GPUS_SHOWN, gpus, gpusError } from './parse-gpus.js';

describe('the GPUs of an overview, as the card reads them', () => {
  it('reads well-formed GPUs and leaves out what is not one', () => {
    expect(
      gpus([
        {
          index: 0,
          name: 'NVIDIA H100 80GB HBM3',
          util: 1,
          mem_used: 20780679168,
          mem_total: 85520809984,
          temp_c: 59,
          power_w: 631.95,
        },
        { index: 'x' },
        null,
        { index: 2, name: 'a\u202eb', util: 3, mem_used: -1 },
      ]),
    ).toEqual([
      {
        index: 0,
        name: 'NVIDIA H100 80GB HBM3',
        util: 1,
        memUsed: 20780679168,
        memTotal: 85520809984,
        tempC: 59,
        powerW: 631.95,
      },
      {
        index: 2,
        name: 'a\ufffdb',
        util: 1,
        memUsed: 0,
        memTotal: null,
        tempC: null,
        powerW: null,
      },
    ]);
    expect(gpus({})).toEqual([]);
    expect(gpus(Array.from({ length: 99 }, (_, index) => ({ index })))).toHaveLength(GPUS_SHOWN);
  });

  it('reads gpus_error as one clean line', () => {
    expect(gpusError('nvidia-smi exited with code 9\u001b[2J')).toBe(
      'nvidia-smi exited with code 9\ufffd[2J',
    );
    expect(gpusError(5)).toBeNull();
    expect(gpusError('')).toBeNull();
  });
});
