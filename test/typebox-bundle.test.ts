import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const DIST = fileURLToPath(new URL('../dist/', import.meta.url));
const FROM_TYPEBOX = /\bfrom\s*["']typebox(\/[^"']*)?["']|\bimport\(\s*["']typebox/;

function builtFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'ui' ? [] : builtFiles(path);
    return e.name.endsWith('.js') ? [path] : [];
  });
}

/** The build's TypeBox: one bundled module, the only way the built programs reach it. */
describe('TypeBox in the build (scripts/bundle-typebox.mjs)', () => {
  it('dist/shared/typebox.js is TypeBox bundled: it imports no TypeBox module', () => {
    const text = readFileSync(join(DIST, 'shared/typebox.js'), 'utf8');
    expect(text).not.toMatch(FROM_TYPEBOX);
    expect(text.length).toBeGreaterThan(100_000);
  });

  it('no other built file imports TypeBox itself (one copy of it per process)', () => {
    const direct = builtFiles(DIST)
      .filter((f) => !f.endsWith(join('shared', 'typebox.js')))
      .filter((f) => FROM_TYPEBOX.test(readFileSync(f, 'utf8')))
      .map((f) => f.slice(DIST.length));
    expect(direct).toEqual([]);
  });

  it('the bundle exports what the source wrapper does, and it works', async () => {
    const built = await import(join(DIST, 'shared/typebox.js'));
    const source = await import('../src/shared/typebox.js');
    expect(Object.keys(built).sort()).toEqual(Object.keys(source).sort());
    const schema = built.Type.Object({ n: built.Type.Integer({ minimum: 1 }) });
    expect(built.Value.Check(schema, { n: 2 })).toBe(true);
    expect(built.Value.Check(schema, { n: 0 })).toBe(false);
    expect(built.Compile(schema).Check({ n: 3 })).toBe(true);
  });
});
