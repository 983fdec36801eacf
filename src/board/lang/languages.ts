import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from '../../shared/logger.js';
import { Value } from '../../shared/typebox.js';
import { Catalogue, LANGUAGE_CODE_PATTERN } from '../schemas.js';

/** The catalogues that ship with the board (from dist/board/ to src/board/lang/). */
export const BUILTIN_LANG_DIR = fileURLToPath(new URL('../../../src/board/lang/', import.meta.url));

const CODE = new RegExp(LANGUAGE_CODE_PATTERN);
const FILE_LIMIT_BYTES = 1024 * 1024;

export interface LanguageItem {
  code: string;
  name: string;
  source: 'builtin' | 'config';
}

interface Cached {
  mtimeMs: number;
  size: number;
  catalogue: Catalogue | null;
}

/**
 * The language catalogues: the built-in directory and the config's `lang/` directory, read
 * from disk on each call (cached by modification time), so a dropped-in file appears without
 * a restart. A config file overrides a built-in of the same code.
 */
export class Languages {
  private readonly cache = new Map<string, Cached>();

  constructor(
    private readonly builtinDir: string,
    private readonly configDir: string | null,
    private readonly log: Logger,
  ) {}

  async list(): Promise<LanguageItem[]> {
    const found = new Map<string, LanguageItem>();
    for (const [dir, source] of this.dirs()) {
      for (const code of await codesIn(dir)) {
        const catalogue = await this.load(join(dir, `${code}.json`), code);
        if (catalogue !== null) found.set(code, { code, name: catalogue.name, source });
      }
    }
    return [...found.values()].sort((a, b) => (a.code < b.code ? -1 : 1));
  }

  /** One catalogue by code, or null. `code` has passed LANGUAGE_CODE_PATTERN, so it is a plain file name. */
  async get(code: string): Promise<Catalogue | null> {
    if (!CODE.test(code)) return null;
    for (const [dir] of this.dirs().reverse()) {
      const catalogue = await this.load(join(dir, `${code}.json`), code);
      if (catalogue !== null) return catalogue;
    }
    return null;
  }

  private dirs(): [string, 'builtin' | 'config'][] {
    const dirs: [string, 'builtin' | 'config'][] = [[this.builtinDir, 'builtin']];
    if (this.configDir !== null) dirs.push([join(this.configDir, 'lang'), 'config']);
    return dirs;
  }

  private async load(file: string, code: string): Promise<Catalogue | null> {
    let info: { mtimeMs: number; size: number; isFile(): boolean };
    try {
      info = await stat(file);
    } catch {
      return null;
    }
    if (!info.isFile()) return null;
    const cached = this.cache.get(file);
    if (cached && cached.mtimeMs === info.mtimeMs && cached.size === info.size)
      return cached.catalogue;
    let catalogue: Catalogue | null = null;
    if (info.size > FILE_LIMIT_BYTES) {
      this.log.warn({ file }, 'language file over 1 MiB ignored');
    } else {
      try {
        const value: unknown = JSON.parse(await readFile(file, 'utf8'));
        if (Value.Check(Catalogue, value)) catalogue = { ...value, code };
        else
          this.log.warn(
            { file },
            'language file is not a catalogue {code, name, messages}; ignored',
          );
      } catch {
        this.log.warn({ file }, 'language file is not valid JSON; ignored');
      }
    }
    this.cache.set(file, { mtimeMs: info.mtimeMs, size: info.size, catalogue });
    return catalogue;
  }
}

async function codesIn(dir: string): Promise<string[]> {
  try {
    const names = await readdir(dir);
    return names
      .filter((n) => n.endsWith('.json'))
      .map((n) => n.slice(0, -'.json'.length))
      .filter((c) => CODE.test(c));
  } catch {
    return [];
  }
}
