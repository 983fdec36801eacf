import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { H100_LOAD, type StandInSmi, standInSmiEnv } from '../../../harness/gpu.js';
import { tempDir } from '../../../test/helpers/tmp.js';
import { nodeGpuReader } from './gpu-probe.js';

/** A reader finding the stand-in nvidia-smi (behaving as `smi`) first on its PATH. */
function reader(smi: StandInSmi = {}) {
  return nodeGpuReader({ ...process.env, ...standInSmiEnv(smi) });
}

describe('nodeGpuReader with the stand-in nvidia-smi on PATH', () => {
  it('reads the recorded H100 with the agent query, once per read', async () => {
    const dir = tempDir();
    const calls = `${dir.path}/calls`;
    const answer = await reader({ calls }).read(5000);
    expect(answer).toEqual({ kind: 'ok', value: [H100_LOAD] });
    expect(readFileSync(calls, 'utf8').trim().split('\n')).toHaveLength(1);
    dir.cleanup();
  });

  it('a failing tool, a garbled answer and a time-out are failures with a reason', async () => {
    expect(await reader({ fail: 'driver' }).read(5000)).toEqual({
      kind: 'failed',
      reason:
        "nvidia-smi exited with code 9: NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.",
    });
    expect(await reader({ fail: 'garbage' }).read(5000)).toMatchObject({
      kind: 'failed',
      reason: expect.stringMatching(/^nvidia-smi printed a line of 1 fields/),
    });
    expect(await reader({ sleepS: 2 }).read(200)).toEqual({
      kind: 'failed',
      reason: 'nvidia-smi did not answer within 200 ms',
    });
  });

  it('no nvidia-smi or rocm-smi on PATH: absent', async () => {
    const dir = tempDir();
    const withoutTools = nodeGpuReader({ ...process.env, PATH: dir.path });
    expect(await withoutTools.read(5000)).toEqual({ kind: 'absent' });
    dir.cleanup();
  });
});
