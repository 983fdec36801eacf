import { join } from 'node:path';
import { ROOT } from '../../harness/root.js';

/** The hwmon fixture tree (test/fixtures/hwmon, see its README): an acpitz, an NVMe, a coretemp. */
export const HWMON_FIXTURE = join(ROOT, 'test/fixtures/hwmon');

/** The temperatures of HWMON_FIXTURE as the agent reports them, in order. */
export const HWMON_FIXTURE_TEMPS = [
  { label: 'acpitz temp1', c: 27.8 },
  { label: 'nvme Composite', c: 35.85 },
  { label: 'nvme Sensor 1', c: 35.85 },
  { label: 'nvme Sensor 2', c: 39.85 },
  { label: 'coretemp Package id 0', c: 45 },
  { label: 'coretemp Core 0', c: 43 },
  { label: 'coretemp Core 1', c: 44 },
  { label: 'coretemp Core 2', c: 42 },
  { label: 'coretemp Core 3', c: 45 },
];

/** The stand-in smartctl and its recordings (test/fixtures/smartctl, see its README). */
export const SMARTCTL_FIXTURE = join(ROOT, 'test/fixtures/smartctl');

/** How the stand-in smartctl behaves (its PANOPTES_FAKE_SMARTCTL_* variables). */
export interface StandInSmartctl {
  /** A file that gets one line per call: pid, start (epoch ms), argv. */
  calls?: string;
  /** Never answers. */
  hang?: boolean;
  /** Every disk answers "Permission denied", as for an agent without the rights. */
  denied?: boolean;
  /** A device that answers "in STANDBY mode". */
  standby?: string;
}

/**
 * The environment under which a program finds the stand-in as `smartctl`: PATH with the
 * stand-in's folder before `path` (default this process's PATH), and how it behaves.
 */
export function standInSmartctlEnv(
  smartctl: StandInSmartctl = {},
  path = process.env.PATH ?? '',
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: `${SMARTCTL_FIXTURE}:${path}` };
  if (smartctl.calls !== undefined) env.PANOPTES_FAKE_SMARTCTL_CALLS = smartctl.calls;
  if (smartctl.hang === true) env.PANOPTES_FAKE_SMARTCTL_HANG = '1';
  if (smartctl.denied === true) env.PANOPTES_FAKE_SMARTCTL_DENIED = '1';
  if (smartctl.standby !== undefined) env.PANOPTES_FAKE_SMARTCTL_STANDBY = smartctl.standby;
  return env;
}

/** The recorded disks as the agent reports them. */
export const NVME0_DISK = {
  device: '/dev/nvme0',
  model: 'Force MP510',
  passed: true,
  temp_c: 38,
  power_on_hours: 6487,
};
export const SDB_DISK = {
  device: '/dev/sdb',
  model: 'WDC WD140EDFZ-11A0VA0',
  passed: true,
  temp_c: 32,
  power_on_hours: 1730,
};
/** Exit status 216: bit 3, "DISK FAILING", and attribute and log bits; the answer is whole. */
export const SDC_FAILING_DISK = {
  device: '/dev/sdc',
  model: 'Hitachi HDS721050DLE630',
  passed: false,
  temp_c: 25,
  power_on_hours: 65592,
};
/** All three, in the scan's order. */
export const RECORDED_DISKS = [NVME0_DISK, SDB_DISK, SDC_FAILING_DISK];
