import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const lock = JSON.parse(readFileSync(new URL('../package-lock.json', import.meta.url), 'utf8')) as {
  packages: Record<string, { hasInstallScript?: boolean }>;
};
const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  allowScripts?: Record<string, boolean>;
};

/**
 * npm (11.16 on) warns at every `npm install` about a dependency whose install script the
 * project's `allowScripts` does not decide, and will refuse to run it undecided (npm 12). Each
 * one in the lock file is decided in package.json.
 */
describe('install scripts of dependencies', () => {
  it('every package with an install script is allowed or denied in allowScripts', () => {
    const withScripts = Object.entries(lock.packages)
      .filter(([path, entry]) => path !== '' && entry.hasInstallScript === true)
      .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length));
    expect(withScripts.length).toBeGreaterThan(0);
    const decided = Object.keys(pkg.allowScripts ?? {}).map((key) =>
      key.replace(/(?<=.)@[^@]*$/, ''),
    );
    expect(withScripts.filter((name) => !decided.includes(name))).toEqual([]);
  });
});
