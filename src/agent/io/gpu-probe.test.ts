import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/helpers/tmp.js';
import { nodeGpuReader } from './gpu-probe.js';

const STAND_IN_DIR = fileURLToPath(new URL('../../../test/fixtures/gpu/', import.meta.url));
const MIB = 1024 * 1024;

function reader(extra: NodeJS.ProcessEnv = {}, path = `${STAND_IN_DIR}:${process.env.PATH}`) {
  return nodeGpuReader({ ...process.env, ...extra, PATH: path });
}

describe('nodeGpuReader with the stand-in nvidia-smi on PATH', () => {
  it('reads the recorded H100 with the agent query, once per read', async () => {
    const dir = tempDir();
    const calls = `${dir.path}/calls`;
    const answer = await reader({ PANOPTES_FAKE_SMI_CALLS: calls }).read(5000);
    expect(answer).toEqual({
      kind: 'ok',
      gpus: [
        {
          index: 0,
          name: 'NVIDIA H100 80GB HBM3',
          util: 1,
          mem_used: 19818 * MIB,
          mem_total: 81559 * MIB,
          temp_c: 59,
          power_w: 631.95,
        },
      ],
    });
    expect(readFileSync(calls, 'utf8').trim().split('\n')).toHaveLength(1);
    dir.cleanup();
  });

  it('a failing tool, a garbled answer and a time-out are failures with a reason', async () => {
    expect(await reader({ PANOPTES_FAKE_SMI_FAIL: 'driver' }).read(5000)).toEqual({
      kind: 'failed',
      reason:
        "nvidia-smi exited with code 9: NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.",
    });
    expect(await reader({ PANOPTES_FAKE_SMI_FAIL: 'garbage' }).read(5000)).toMatchObject({
      kind: 'failed',
      reason: expect.stringMatching(/^nvidia-smi printed a line of 1 fields/),
    });
    expect(await reader({ PANOPTES_FAKE_SMI_SLEEP: '2' }).read(200)).toEqual({
      kind: 'failed',
      reason: 'nvidia-smi did not answer within 200 ms',
    });
  });

  it('no nvidia-smi or rocm-smi on PATH: absent', async () => {
    const dir = tempDir();
    expect(await reader({}, dir.path).read(5000)).toEqual({ kind: 'absent' });
    dir.cleanup();
  });
});
