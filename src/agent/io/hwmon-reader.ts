import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SourceReader } from '../domain/source-watch.js';
import { type HwmonChip, type TempEntry, temperatures } from '../domain/temps.js';

const INPUT = /^temp(\d+)_input$/;

/**
 * The temperatures of the hwmon tree at `root` (/sys/class/hwmon, whose entries are symlinks
 * into /sys/devices: followed). No root, or no sensor under it (most VMs): absent. A sensor that
 * cannot be read (a driver answering EIO or ENODATA) is left out.
 */
export function nodeHwmonReader(root: string): SourceReader<TempEntry[]> {
  return {
    async read() {
      let dirs: string[];
      try {
        dirs = await readdir(root);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'absent' };
        return { kind: 'failed', reason: `${root}: ${(error as Error).message}` };
      }
      const chips = await Promise.all(dirs.map((dir) => readChip(root, dir)));
      const temps = temperatures(chips.filter((c): c is HwmonChip => c !== null));
      return temps.length === 0 ? { kind: 'absent' } : { kind: 'ok', value: temps };
    },
    // A few small files, read at once: nothing to end.
    cancel() {},
  };
}

async function readChip(root: string, dir: string): Promise<HwmonChip | null> {
  const path = join(root, dir);
  let files: string[];
  try {
    files = await readdir(path);
  } catch {
    return null;
  }
  const sensors = await Promise.all(
    files.map(async (file) => {
      const index = INPUT.exec(file)?.[1];
      if (index === undefined) return null;
      const input = await readText(join(path, file));
      if (input === null) return null;
      return {
        index: Number(index),
        label: files.includes(`temp${index}_label`)
          ? await readText(join(path, `temp${index}_label`))
          : null,
        input,
      };
    }),
  );
  return {
    dir,
    name: await readText(join(path, 'name')),
    sensors: sensors.filter((s) => s !== null),
  };
}

async function readText(file: string): Promise<string | null> {
  try {
    return await readFile(file, 'utf8');
  } catch {
    return null;
  }
}
