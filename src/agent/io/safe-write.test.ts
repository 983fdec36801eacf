import {
  lstatSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/helpers/tmp.js';
import {
  chmodNoFollow,
  chmodNoFollowSync,
  copyIntoPlaceSync,
  createFileSync,
  openNoFollow,
  replaceFile,
  replaceFileSync,
  SymlinkRefused,
} from './safe-write.js';

const dir = tempDir('panoptes-safe-write-');
afterAll(() => dir.cleanup());

/** A file the test owns, and a link to it planted at `name`: what an attacker would leave. */
function planted(name: string): { link: string; target: string } {
  const target = dir.write(`${name}.target`, 'the target, unchanged\n');
  const link = join(dir.path, name);
  symlinkSync(target, link);
  return { link, target };
}

/** The link is still a link, and what it points to holds what it held, with its mode. */
function untouched({ link, target }: { link: string; target: string }, mode: number): void {
  expect(lstatSync(link).isSymbolicLink()).toBe(true);
  expect(readFileSync(target, 'utf8')).toBe('the target, unchanged\n');
  expect(statSync(target).mode & 0o777).toBe(mode);
}

describe('writing files without following symbolic links', () => {
  it('replaces a file atomically with its mode, and refuses a link there, naming it', async () => {
    const file = join(dir.path, 'plain.json');
    replaceFileSync(file, 'one', 0o600);
    expect(readFileSync(file, 'utf8')).toBe('one');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    await replaceFile(file, 'two', 0o640);
    expect(readFileSync(file, 'utf8')).toBe('two');
    expect(statSync(file).mode & 0o777).toBe(0o640);

    const sync = planted('sync.json');
    const mode = statSync(sync.target).mode & 0o777;
    expect(() => replaceFileSync(sync.link, 'evil', 0o600)).toThrow(SymlinkRefused);
    expect(() => replaceFileSync(sync.link, 'evil', 0o600)).toThrow(
      `${sync.link} is a symbolic link`,
    );
    untouched(sync, mode);
    const async = planted('async.json');
    await expect(replaceFile(async.link, 'evil', 0o600)).rejects.toThrow(
      `${async.link} is a symbolic link`,
    );
    untouched(async, mode);
    // No temporary file left behind by a refusal.
    expect(readdirSync(dir.path).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('creates only a new file: a link (even a dangling one) is refused, naming it', async () => {
    const fresh = join(dir.path, 'fresh.bin');
    createFileSync(fresh, Buffer.from([1, 2, 3]), 0o755);
    expect(statSync(fresh).mode & 0o777).toBe(0o755);
    expect(() => createFileSync(fresh, 'again', 0o600)).toThrow(/EEXIST/);
    const link = planted('new.link');
    expect(() => createFileSync(link.link, 'evil', 0o600)).toThrow(
      `${link.link} is a symbolic link`,
    );
    await expect(openNoFollow(link.link, 'new', 0o600)).rejects.toThrow(SymlinkRefused);
    untouched(link, statSync(link.target).mode & 0o777);
    const dangling = join(dir.path, 'dangling');
    symlinkSync(join(dir.path, 'not-there'), dangling);
    expect(() => createFileSync(dangling, 'evil', 0o600)).toThrow(SymlinkRefused);
    expect(readdirSync(dir.path)).not.toContain('not-there');
  });

  it('opens to append or truncate, and chmods, without following a link', async () => {
    const log = join(dir.path, 'log.jsonl');
    writeFileSync(log, 'a\n', { mode: 0o644 });
    const handle = await openNoFollow(log, 'append', 0o600);
    await handle.write('b\n');
    await handle.close();
    expect(readFileSync(log, 'utf8')).toBe('a\nb\n');
    expect(statSync(log).mode & 0o777).toBe(0o600);
    const link = planted('append.link');
    const mode = statSync(link.target).mode & 0o777;
    for (const how of ['append', 'truncate'] as const) {
      await expect(openNoFollow(link.link, how, 0o600)).rejects.toThrow(
        `${link.link} is a symbolic link`,
      );
    }
    expect(() => chmodNoFollowSync(link.link, 0o777)).toThrow(SymlinkRefused);
    await expect(chmodNoFollow(link.link, 0o777)).rejects.toThrow(SymlinkRefused);
    expect(chmodNoFollowSync(join(dir.path, 'absent'), 0o600)).toBe(false);
    untouched(link, mode);
  });

  it('copies a file into place with a mode, never through a link there', () => {
    const from = dir.write('program.mjs', 'console.log(1);\n');
    const to = join(dir.path, 'installed.mjs');
    copyIntoPlaceSync(from, to, 0o755);
    expect(readFileSync(to, 'utf8')).toBe('console.log(1);\n');
    expect(statSync(to).mode & 0o777).toBe(0o755);
    const link = planted('installed-link.mjs');
    const mode = statSync(link.target).mode & 0o777;
    expect(() => copyIntoPlaceSync(from, link.link, 0o755)).toThrow(SymlinkRefused);
    untouched(link, mode);
  });
});
