import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const LANG_DIR = fileURLToPath(new URL('.', import.meta.url));
const UI_DIR = fileURLToPath(new URL('../ui/src', import.meta.url));

interface Catalogue {
  code: string;
  name: string;
  messages: Record<string, unknown>;
}

function load(file: string): Catalogue {
  return JSON.parse(readFileSync(join(LANG_DIR, file), 'utf8')) as Catalogue;
}

function placeholders(text: string): string[] {
  return [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1] ?? '').sort();
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : [join(dir, e.name)],
  );
}

const files = readdirSync(LANG_DIR).filter((f) => f.endsWith('.json'));
const english = load('en.json');
const keys = Object.keys(english.messages).sort();

describe('built-in language catalogues', () => {
  it('include English, German, French, Spanish and Japanese', () => {
    expect(files.sort()).toEqual(
      expect.arrayContaining(['de.json', 'en.json', 'es.json', 'fr.json', 'ja.json']),
    );
  });

  it('English defines a non-trivial key set', () => {
    expect(keys.length).toBeGreaterThan(50);
  });

  for (const file of files) {
    describe(file, () => {
      const catalogue = load(file);

      it('names its own code and language', () => {
        expect(catalogue.code).toBe(file.replace(/\.json$/, ''));
        expect(catalogue.code).toMatch(/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/);
        expect(typeof catalogue.name).toBe('string');
        expect(catalogue.name.trim()).not.toBe('');
      });

      it('has exactly the keys of en.json', () => {
        expect(Object.keys(catalogue.messages).sort()).toEqual(keys);
      });

      it('has a non-empty string for every key, with the same {placeholders} as English', () => {
        for (const key of keys) {
          const text = catalogue.messages[key];
          expect(typeof text, key).toBe('string');
          expect((text as string).trim(), key).not.toBe('');
          const englishText = english.messages[key] as string;
          expect(placeholders(text as string), key).toEqual(placeholders(englishText));
        }
      });

      if (file !== 'en.json') {
        it('is a translation, not a copy of English', () => {
          const same = keys.filter((k) => catalogue.messages[k] === english.messages[k]);
          // Short words such as "CPU" or the product name may stay as they are.
          expect(same.length).toBeLessThan(keys.length / 5);
        });
      }
    });
  }

  it('every English key is used by the UI (no stale strings to translate)', () => {
    const source = sourceFiles(UI_DIR)
      .filter((f) => /\.tsx?$/.test(f))
      .map((f) => readFileSync(f, 'utf8'))
      .join('\n');
    const unused = keys.filter((k) => !source.includes(`'${k}'`) && !source.includes(`"${k}"`));
    expect(unused).toEqual([]);
  });
});
