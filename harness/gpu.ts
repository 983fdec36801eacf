import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './root.js';

/**
 * The GPU fixtures (test/fixtures/gpu, see its README): recorded `nvidia-smi` and `rocm-smi`
 * output, and a stand-in `nvidia-smi` that prints a recorded capture for the agent's query.
 */
export const GPU_FIXTURES = join(ROOT, 'test/fixtures/gpu');

/** A file of the GPU fixtures, e.g. `captures/h100-load.csv` or `rocm/mi100_rocm602.json`. */
export function gpuFixture(path: string): string {
  return readFileSync(join(GPU_FIXTURES, path), 'utf8');
}

/** How the stand-in `nvidia-smi` behaves (its PANOPTES_FAKE_SMI_* variables). */
export interface StandInSmi {
  /** The capture it prints, `captures/NAME.csv` (default `h100-load`). */
  sample?: string;
  /** A file that gets one line per call: pid, start (epoch ms), argv. */
  calls?: string;
  /** Seconds it waits before answering (a slow driver). */
  sleepS?: number;
  /** `driver`: the real "couldn't communicate" failure, exit 9; `garbage`: no CSV, exit 0. */
  fail?: 'driver' | 'garbage';
  /** Answers the `nounits` query with units all the same. */
  units?: boolean;
}

/**
 * The environment under which a program finds the stand-in as `nvidia-smi`: PATH with the
 * stand-in's folder before `path` (default this process's PATH), and how it behaves.
 */
export function standInSmiEnv(
  smi: StandInSmi = {},
  path = process.env.PATH ?? '',
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: `${GPU_FIXTURES}:${path}` };
  if (smi.sample !== undefined) env.PANOPTES_FAKE_SMI_SAMPLE = smi.sample;
  if (smi.calls !== undefined) env.PANOPTES_FAKE_SMI_CALLS = smi.calls;
  if (smi.sleepS !== undefined) env.PANOPTES_FAKE_SMI_SLEEP = String(smi.sleepS);
  if (smi.fail !== undefined) env.PANOPTES_FAKE_SMI_FAIL = smi.fail;
  if (smi.units === true) env.PANOPTES_FAKE_SMI_UNITS = '1';
  return env;
}

const MIB = 1024 * 1024;

/** The H100 of `captures/h100-load.csv` (the stand-in's default), as the agent reports it. */
export const H100_LOAD = {
  index: 0,
  name: 'NVIDIA H100 80GB HBM3',
  util: 1,
  mem_used: 19818 * MIB,
  mem_total: 81559 * MIB,
  temp_c: 59,
  power_w: 631.95,
};

/** The L40S of `captures/l40s-load.csv`, as the second GPU of `two-gpus-composed.csv`. */
export const L40S_LOAD_AS_1 = {
  index: 1,
  name: 'NVIDIA L40S',
  util: 0.09,
  mem_used: 1235 * MIB,
  mem_total: 46068 * MIB,
  temp_c: 54,
  power_w: 110.23,
};
