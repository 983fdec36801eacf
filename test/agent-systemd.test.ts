import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from './helpers/tmp.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const UNIT = readFileSync(`${ROOT}deploy/panoptes-agent.service`, 'utf8');
const run = promisify(execFile);

async function which(program: string): Promise<string | null> {
  try {
    return (await run('sh', ['-c', `command -v ${program}`])).stdout.trim() || null;
  } catch {
    return null;
  }
}

const analyze = await which('systemd-analyze');
const dir = tempDir('panoptes-unit-');
afterAll(() => dir.cleanup());

/** systemd-analyze verify of a unit text; its exit code and everything it printed. */
async function verify(text: string, name: string): Promise<{ code: number; output: string }> {
  // The unit names /usr/bin/node; verify checks that the program exists, so use this Node.
  const file = dir.write(name, text.replace('/usr/bin/node', process.execPath));
  try {
    const { stdout, stderr } = await run(analyze ?? 'false', ['verify', '--man=no', file]);
    return { code: 0, output: `${stdout}${stderr}`.trim() };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? 1, output: `${e.stdout ?? ''}${e.stderr ?? ''}`.trim() };
  }
}

describe('deploy/panoptes-agent.service', () => {
  it('starts the built agent with --config and lets the agent stop its own children', () => {
    const exec = /^ExecStart=(\S+) \/opt\/panoptes\/(\S+) --config (\S+)$/m.exec(UNIT);
    expect(exec?.[2]).toBe('dist/agent/main.js');
    expect(existsSync(`${ROOT}${exec?.[2]}`)).toBe(true);
    expect(UNIT).toMatch(/^KillMode=mixed$/m);
    expect(UNIT).toMatch(/^EnvironmentFile=-\/etc\/panoptes\/agent\.env$/m);
  });

  // Without systemd-analyze (not every CI image has it) only this one check is skipped.
  it.skipIf(analyze === null)('systemd-analyze verify accepts it without a warning', async () => {
    expect(await verify(UNIT, 'panoptes-agent.service')).toEqual({ code: 0, output: '' });
    // The check can fail: a misspelt key and a bad value are reported.
    const broken = UNIT.replace('Restart=on-failure', 'Restart=sometimes').replace(
      'UMask=',
      'Umask=',
    );
    const result = await verify(broken, 'broken.service');
    expect(result.output).toContain("Unknown key 'Umask'");
    expect(result.output).toContain('sometimes');
  });
});
