import { renameSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/helpers/tmp.js';
import { createLogger } from '../logger.js';
import { type ReloadReason, type ReloadTrigger, startReloadTrigger } from './reload-trigger.js';

const log = createLogger('test', 'silent');
const dir = tempDir('panoptes-trigger-');
let trigger: ReloadTrigger | null = null;
afterEach(() => {
  trigger?.close();
  trigger = null;
});

/** Resolves once `check` holds, polling the event loop (no time limit of its own). */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe('startReloadTrigger', () => {
  it('runs one reload at a time: signals during a reload make exactly one more', async () => {
    const file = dir.write('a/board.yaml', 'x: 1\n');
    const calls: ReloadReason[] = [];
    let release: () => void = () => undefined;
    trigger = startReloadTrigger({
      file,
      log,
      reload: (why) => {
        calls.push(why);
        return calls.length === 1 ? new Promise<void>((r) => (release = r)) : Promise.resolve();
      },
    });
    process.emit('SIGHUP', 'SIGHUP');
    process.emit('SIGHUP', 'SIGHUP');
    process.emit('SIGHUP', 'SIGHUP');
    expect(calls).toEqual(['SIGHUP']);
    release();
    await until(() => calls.length === 2);
    await trigger.idle();
    expect(calls).toEqual(['SIGHUP', 'SIGHUP']);
  });

  it('reloads when the file is replaced on disk', async () => {
    const file = dir.write('b/board.yaml', 'x: 1\n');
    const calls: ReloadReason[] = [];
    trigger = startReloadTrigger({
      file,
      log,
      debounceMs: 20,
      reload: async (why) => {
        calls.push(why);
      },
    });
    dir.write('b/board.yaml.tmp', 'x: 2\n');
    renameSync(`${dir.path}/b/board.yaml.tmp`, file);
    await until(() => calls.length > 0);
    expect(calls).toEqual(['file change']);
  });

  it('without a file, SIGHUP reloads nothing (and no longer ends the process)', () => {
    const calls: ReloadReason[] = [];
    trigger = startReloadTrigger({
      file: null,
      log,
      reload: async (why) => {
        calls.push(why);
      },
    });
    process.emit('SIGHUP', 'SIGHUP');
    expect(calls).toEqual([]);
    expect(process.listenerCount('SIGHUP')).toBeGreaterThan(0);
  });
});
