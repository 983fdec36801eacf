import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The repository root, with a trailing slash: the nearest directory above this file that holds
 * package.json. The harness runs from its source (tests) and from dist/harness/ (the bench).
 */
export const ROOT = findRoot(dirname(fileURLToPath(import.meta.url)));

function findRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return `${dir}/`;
    if (dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}
