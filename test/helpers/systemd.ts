import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { TempDir } from './tmp.js';

const run = promisify(execFile);

/** The path of a program on PATH, or null. */
export async function which(program: string): Promise<string | null> {
  try {
    return (await run('sh', ['-c', `command -v ${program}`])).stdout.trim() || null;
  } catch {
    return null;
  }
}

/** systemd-analyze, when this machine has it (not every CI image does). */
export const analyze = await which('systemd-analyze');

/** systemd-analyze verify of a unit text; its exit code and everything it printed. */
export async function verifyUnit(
  dir: TempDir,
  text: string,
  name: string,
): Promise<{ code: number; output: string }> {
  // The units name /usr/bin/node; verify checks that the program exists, so use this Node.
  const file = dir.write(name, text.replace('/usr/bin/node', process.execPath));
  try {
    const { stdout, stderr } = await run(analyze ?? 'false', ['verify', '--man=no', file]);
    return { code: 0, output: `${stdout}${stderr}`.trim() };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? 1, output: `${e.stdout ?? ''}${e.stderr ?? ''}`.trim() };
  }
}
