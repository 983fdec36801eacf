import { cpSync, mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  HWMON_FIXTURE as FIXTURE,
  HWMON_FIXTURE_TEMPS as FIXTURE_TEMPS,
} from '../../../test/helpers/machine-sources.js';
import { tempDir } from '../../../test/helpers/tmp.js';
import { nodeHwmonReader } from './hwmon-reader.js';

describe('nodeHwmonReader', () => {
  const dir = tempDir('panoptes-hwmon-');
  afterAll(() => dir.cleanup());

  it('reads every tempK_input of the tree with its chip name and label', async () => {
    expect(await nodeHwmonReader(FIXTURE).read(1000)).toEqual({ kind: 'ok', value: FIXTURE_TEMPS });
  });

  it('follows the symlinks of /sys/class/hwmon; skips a sensor that cannot be read', async () => {
    // The kernel's layout: /sys/class/hwmon/hwmonN -> ../../devices/…/hwmon/hwmonN.
    const devices = join(dir.path, 'devices/platform/coretemp.0/hwmon');
    mkdirSync(devices, { recursive: true });
    cpSync(join(FIXTURE, 'hwmon2'), join(devices, 'hwmon2'), { recursive: true });
    // A sensor whose read fails (EIO, ENODATA on a real driver; EISDIR here).
    mkdirSync(join(devices, 'hwmon2/temp6_input'));
    const root = join(dir.path, 'class/hwmon');
    mkdirSync(root, { recursive: true });
    symlinkSync('../../devices/platform/coretemp.0/hwmon/hwmon2', join(root, 'hwmon2'));
    expect(await nodeHwmonReader(root).read(1000)).toEqual({
      kind: 'ok',
      value: FIXTURE_TEMPS.filter((t) => t.label.startsWith('coretemp')),
    });
  });

  it('no hwmon root, or no sensor in it (a VM): absent', async () => {
    expect(await nodeHwmonReader(join(dir.path, 'none')).read(1000)).toEqual({ kind: 'absent' });
    mkdirSync(join(dir.path, 'empty'));
    expect(await nodeHwmonReader(join(dir.path, 'empty')).read(1000)).toEqual({ kind: 'absent' });
  });
});
