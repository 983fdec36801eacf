import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/helpers/tmp.js';
import { nodeNetReader } from './net-reader.js';

describe('nodeNetReader', () => {
  const dir = tempDir('panoptes-net-');
  afterAll(() => dir.cleanup());

  it('reads the real /proc/net/dev: counters at once, rates from the second read', async () => {
    const reader = nodeNetReader();
    const first = await reader.read(1000);
    if (first.kind !== 'ok') throw new Error(JSON.stringify(first));
    expect(first.value.rx_bps).toBeNull();
    expect(first.value.interfaces.map((i) => i.name)).not.toContain('lo');
    await new Promise((r) => setTimeout(r, 20));
    const second = await reader.read(1000);
    if (second.kind !== 'ok') throw new Error(JSON.stringify(second));
    expect(second.value.rx_bps).toBeGreaterThanOrEqual(0);
    expect(second.value.tx_bps).toBeGreaterThanOrEqual(0);
  });

  it('no such file: absent; a file that is not /proc/net/dev: failed with the reason', async () => {
    expect(await nodeNetReader(join(dir.path, 'none')).read(1000)).toEqual({ kind: 'absent' });
    const garbled = dir.write('dev', 'hello\n');
    expect(await nodeNetReader(garbled).read(1000)).toEqual({
      kind: 'failed',
      reason: '/proc/net/dev has no header',
    });
  });
});
