import { execFile } from 'node:child_process';
import { cpSync, symlinkSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from './helpers/tmp.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TSC = `${ROOT}node_modules/typescript/bin/tsc`;
const BIOME = `${ROOT}node_modules/@biomejs/biome/bin/biome`;

/** Copies the sources and build files into a scratch tree, where a bad import can be planted. */
function copyTree(): ReturnType<typeof tempDir> {
  const dir = tempDir('panoptes-layout-');
  for (const f of ['tsconfig.json', 'tsconfig.base.json', 'package.json', 'biome.json']) {
    cpSync(`${ROOT}${f}`, `${dir.path}/${f}`);
  }
  cpSync(`${ROOT}src`, `${dir.path}/src`, { recursive: true });
  symlinkSync(`${ROOT}node_modules`, `${dir.path}/node_modules`);
  return dir;
}

async function build(dir: string): Promise<{ ok: boolean; output: string }> {
  try {
    await run(process.execPath, [TSC, '-b'], { cwd: dir });
    return { ok: true, output: '' };
  } catch (error) {
    return { ok: false, output: String((error as { stdout?: string }).stdout) };
  }
}

describe('board/ and agent/ never import each other', () => {
  const dir = copyTree();
  afterAll(() => dir.cleanup());

  it('the untouched tree builds', async () => {
    expect(await build(dir.path)).toEqual({ ok: true, output: '' });
  });

  it('tsc -b fails when the board imports from the agent', async () => {
    dir.write('src/board/bad-import.ts', "export { AGENT_DEFAULTS } from '../agent/config.js';\n");
    const result = await build(dir.path);
    expect(result.ok).toBe(false);
    expect(result.output).toContain('TS6307');
  });

  it('biome refuses the same import', async () => {
    const result = await run(
      process.execPath,
      [BIOME, 'lint', '--vcs-enabled=false', 'src/board/bad-import.ts'],
      {
        cwd: dir.path,
      },
    ).then(
      () => 'passed',
      (error: { stdout?: string; stderr?: string }) => `${error.stdout}${error.stderr}`,
    );
    expect(result).toContain('noRestrictedImports');
  });
});
