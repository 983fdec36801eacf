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
