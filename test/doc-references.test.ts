import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { brokenLinks } from './helpers/markdown-links.js';

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
      brokenLinks(ROOT, file, readFileSync(join(ROOT, file), 'utf8')),
    );
    expect(broken).toEqual([]);
  });

  it('take link syntax shown as code (a code span or a fenced block) for code, not a link', () => {
    const doc = [
      'Write `[text](docs/nosuch.md)` to link; ``a `[x](nosuch-2.md)` in two``.',
      '```md',
      'See [the guide](nosuch-3.md).',
      '```',
      'But [this](nosuch-4.md) and [that](docs/api.md) are links, `code` beside them.',
    ].join('\n');
    expect(brokenLinks(ROOT, 'README.md', doc)).toEqual(['README.md: nosuch-4.md']);
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
