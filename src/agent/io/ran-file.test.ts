import {
  appendFileSync,
  chmodSync,
  mkdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/helpers/tmp.js';
import { RAN_FILE, RanFile } from './ran-file.js';

const dir = tempDir('panoptes-ran-');
afterAll(() => dir.cleanup());
let n = 0;
function place(): string {
  n += 1;
  return join(dir.path, `d${n}`);
}

describe('RanFile', () => {
  it('remembers started ids and results across a reopen', async () => {
    const where = place();
    const store = await RanFile.open(where);
    await store.markStarted('a');
    await store.record({ id: 'a', status: 200, body: { ok: true } });
    await store.markStarted('b');
    await store.close();
    const again = await RanFile.open(where);
    expect(again.get('a')).toEqual({
      id: 'a',
      state: 'done',
      result: { id: 'a', status: 200, body: { ok: true } },
    });
    expect(again.get('b')).toEqual({ id: 'b', state: 'started' });
    expect(again.get('c')).toBeUndefined();
    await again.close();
  });

  it('drops a torn last line and keeps appending cleanly', async () => {
    const where = place();
    const store = await RanFile.open(where);
    await store.record({ id: 'a', status: 200, body: null });
    await store.close();
    appendFileSync(join(where, RAN_FILE), '{"id":"b","sta');
    const again = await RanFile.open(where);
    expect(again.get('b')).toBeUndefined();
    await again.markStarted('c');
    await again.close();
    const lines = readFileSync(join(where, RAN_FILE), 'utf8').trimEnd().split('\n');
    expect(lines.map((l) => JSON.parse(l).id)).toEqual(['a', 'c']);
    const third = await RanFile.open(where);
    expect(third.get('a')?.state).toBe('done');
    expect(third.get('c')?.state).toBe('started');
    await third.close();
  });

  it('ignores lines that are not records', async () => {
    const where = place();
    const first = await RanFile.open(where);
    await first.close();
    writeFileSync(join(where, RAN_FILE), 'garbage\n[]\n{"id":""}\n{"id":"x","started":true}\n');
    const store = await RanFile.open(where);
    expect(store.get('x')).toEqual({ id: 'x', state: 'started' });
    await store.close();
  });

  it('is bounded: keeps the newest ids and rewrites the file when it has grown', async () => {
    const where = place();
    const store = await RanFile.open(where, 5);
    for (let i = 0; i < 12; i += 1) await store.markStarted(`id${i}`);
    expect(store.get('id6')).toBeUndefined();
    expect(store.get('id7')?.state).toBe('started');
    await store.close();
    const lines = readFileSync(join(where, RAN_FILE), 'utf8').trimEnd().split('\n');
    expect(lines.length).toBeLessThanOrEqual(10);
    const again = await RanFile.open(where, 5);
    expect(again.get('id11')?.state).toBe('started');
    expect(again.get('id0')).toBeUndefined();
    await again.close();
  });

  it('keeps only the end of a long output', async () => {
    const where = place();
    const store = await RanFile.open(where);
    await store.record({ id: 'a', status: 200, body: { ok: true, output: 'x'.repeat(5000) } });
    const entry = store.get('a');
    const output = entry?.state === 'done' ? (entry.result.body as { output: string }).output : '';
    expect(output).toHaveLength(1000);
    await store.close();
  });

  it('writes its file 0600 whatever the umask, and makes one an earlier agent left 0644 private', async () => {
    const umask = process.umask(0o022);
    try {
      const fresh = place();
      const store = await RanFile.open(fresh);
      await store.markStarted('a');
      await store.close();
      expect(statSync(fresh).mode & 0o777).toBe(0o700);
      expect(statSync(join(fresh, RAN_FILE)).mode & 0o777).toBe(0o600);
      const old = place();
      mkdirSync(old, { mode: 0o755 });
      writeFileSync(join(old, RAN_FILE), '{"id":"a","started":true}\n');
      chmodSync(join(old, RAN_FILE), 0o644);
      const again = await RanFile.open(old);
      expect(statSync(join(old, RAN_FILE)).mode & 0o777).toBe(0o600);
      await again.close();
    } finally {
      process.umask(umask);
    }
  });
});
