import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/helpers/tmp.js';
import { privateDir } from './private-files.js';
import { REVOKED_FILE, RevokedKeys } from './revoked-keys.js';

const dir = tempDir('panoptes-revoked-');
afterAll(() => dir.cleanup());
const KEY = 'board-key-0123456789abcdef';

describe('RevokedKeys', () => {
  it('refuses a key at once, keeps it across a reopen, and holds only its hash (0600)', async () => {
    const where = join(dir.path, 'a');
    await privateDir(where);
    const keys = await RevokedKeys.open(where);
    expect(keys.has(KEY)).toBe(false);
    expect(keys.has(null)).toBe(false);
    const first = keys.add(KEY);
    expect(first.added).toBe(true);
    expect(keys.has(KEY)).toBe(true);
    await first.written;
    expect(keys.add(KEY).added).toBe(false);
    const file = join(where, REVOKED_FILE);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).not.toContain(KEY);
    const again = await RevokedKeys.open(where);
    expect(again.has(KEY)).toBe(true);
    expect(again.has('another-key-0123456789')).toBe(false);
  });

  it('none without the file; lines that are not a hash are passed over', async () => {
    const where = join(dir.path, 'b');
    expect((await RevokedKeys.open(where)).has(KEY)).toBe(false);
    mkdirSync(where);
    writeFileSync(join(where, REVOKED_FILE), 'torn-li');
    const keys = await RevokedKeys.open(where);
    expect(keys.has(KEY)).toBe(false);
    await keys.add(KEY).written;
    expect((await RevokedKeys.open(where)).has(KEY)).toBe(true);
  });
});

describe('privateDir', () => {
  it('makes the directory 0700, also one that was there with another mode', async () => {
    const fresh = join(dir.path, 'fresh', 'data');
    await privateDir(fresh);
    expect(statSync(fresh).mode & 0o777).toBe(0o700);
    const old = join(dir.path, 'old');
    mkdirSync(old, { mode: 0o755 });
    await privateDir(old);
    expect(statSync(old).mode & 0o777).toBe(0o700);
  });
});
