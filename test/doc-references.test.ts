import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

const DOCS = [
  'README.md',
  'CONTRIBUTING.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** Each line of each doc that matches `pattern`, as `file:line: text`. */
function linesMatching(pattern: RegExp, files: readonly string[] = DOCS): string[] {
  return files.flatMap((file) =>
    readFileSync(join(ROOT, file), 'utf8')
      .split('\n')
      .flatMap((text, i) => (pattern.test(text) ? [`${file}:${i + 1}: ${text}`] : [])),
  );
}

/** The docs point only at what a reader of the repository can open. */
describe('references in the docs', () => {
  it('cite no design page or numbered specification section the repository does not have', () => {
    expect(linesMatching(/DESIGN(\.md)?\b|section \d+,? rule \d+|specification, section/)).toEqual(
      [],
    );
  });

  it('link only to files that exist', () => {
    const broken = DOCS.flatMap((file) =>
      [...readFileSync(join(ROOT, file), 'utf8').matchAll(/\]\(([^)\s]+)\)/g)]
        .map((m) => m[1] ?? '')
        .filter((target) => !/^[a-z]+:/.test(target) && !target.startsWith('#'))
        .filter((target) => !existsSync(join(ROOT, dirname(file), target.split('#')[0] ?? '')))
        .map((target) => `${file}: ${target}`),
    );
    expect(broken).toEqual([]);
  });

  it('name the files of older data directories only where they are imported from', () => {
    // The store holds the journal, queue, identities, silences and pending notifications now;
    // upgrading.md lists the files an earlier version wrote, and decisions.md and the test
    // reports tell what changed.
    const current = DOCS.filter(
      (f) => !/^docs\/(upgrading|decisions|reliability|performance[^/]*)\.md$/.test(f),
    );
    expect(
      linesMatching(
        /\b(silences\.json|announced\.json|journal\.jsonl|queue\.jsonl|notify-pending\.json)\b/,
        current,
      ),
    ).toEqual([]);
  });
});
