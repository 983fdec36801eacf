import { readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/helpers/tmp.js';
import type { Logger } from '../../shared/logger.js';
import { BELL_FILE, BellFile } from './bell-file.js';

const dir = tempDir('panoptes-bell-file-');
afterAll(() => dir.cleanup());

/** A logger that keeps what was warned. */
function warnings(): { logger: Logger; seen: unknown[] } {
  const seen: unknown[] = [];
  const logger = { warn: (...args: unknown[]) => seen.push(args) } as unknown as Logger;
  return { logger, seen };
}

const BELL = {
  session: 'claude · api',
  why: 'attention' as const,
  text: 'Allow?',
  at: '2026-01-01T00:00:00.000Z',
};

describe('BellFile', () => {
  it('keeps the bells across a reopen, 0600 in a 0700 directory', async () => {
    const where = join(dir.path, 'a');
    const file = new BellFile(where, warnings().logger);
    expect(await file.load()).toEqual([]);
    await file.save([BELL]);
    expect(statSync(join(where, BELL_FILE)).mode & 0o777).toBe(0o600);
    expect(statSync(where).mode & 0o777).toBe(0o700);
    expect(await new BellFile(where, warnings().logger).load()).toEqual([BELL]);
  });

  it('never writes through a symlink, and refuses to read one (naming the path)', async () => {
    const where = join(dir.path, 'b');
    const target = join(dir.path, 'target.txt');
    writeFileSync(target, JSON.stringify({ sessions: [BELL] }));
    const file = new BellFile(where, warnings().logger);
    await file.save([]);
    const planted = join(where, BELL_FILE);
    rmSync(planted);
    symlinkSync(target, planted);
    await expect(file.save([])).rejects.toThrow(`${planted} is a symbolic link`);
    expect(JSON.parse(readFileSync(target, 'utf8'))).toEqual({ sessions: [BELL] });
    const log = warnings();
    expect(await new BellFile(where, log.logger).load()).toEqual([]);
    const [fields] = log.seen[0] as [{ err: Error; path: string }];
    expect(fields.err.message).toContain(`${planted} is a symbolic link`);
  });

  it('a file that is not JSON, or holds odd entries, gives what it can', async () => {
    const where = join(dir.path, 'd');
    await new BellFile(where, warnings().logger).save([]);
    writeFileSync(join(where, BELL_FILE), '{"sessions":[');
    const log = warnings();
    expect(await new BellFile(where, log.logger).load()).toEqual([]);
    expect(log.seen.length).toBe(1);
    writeFileSync(
      join(where, BELL_FILE),
      JSON.stringify({ sessions: [BELL, { session: 1 }, null] }),
    );
    expect(await new BellFile(where, warnings().logger).load()).toEqual([BELL]);
  });
});
