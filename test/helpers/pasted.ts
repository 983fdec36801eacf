import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { type RunningProgram, startShell } from '../../harness/processes.js';
import { runWithInput } from '../../harness/run-with-input.js';
import { which } from './systemd.js';

/** The tool the pasted command checks the agent file's SHA-256 with. */
export type ChecksumTool = 'sha256sum' | 'shasum';

/**
 * A directory holding only `node`, `curl`, `rm` and one checksum tool (links to this machine's):
 * as PATH, it makes this machine look like one with nothing else installed (no npm), where "Add
 * a machine"'s command is pasted. `shasum` (Perl's, as on macOS) stands for a machine without
 * coreutils' `sha256sum`.
 */
export async function pasteBin(bin: string, checksum: ChecksumTool = 'sha256sum'): Promise<string> {
  mkdirSync(bin);
  symlinkSync(process.execPath, join(bin, 'node'));
  for (const tool of ['curl', 'rm', checksum]) {
    symlinkSync((await which(tool)) ?? `/usr/bin/${tool}`, join(bin, tool));
  }
  return bin;
}

/**
 * Runs a pasted command line as a shell would, in `work` (made here if need be), with `bin` alone on
 * PATH; resolves once the agent it starts listens.
 */
export function paste(line: string, bin: string, work: string): Promise<RunningProgram> {
  mkdirSync(work, { recursive: true });
  return startShell(line, { cwd: work, env: { PATH: bin, HOME: work }, timeoutMs: 30_000 });
}

/** Like paste, for a command that is expected to end: its exit code and everything it wrote. */
export async function pasteToEnd(
  line: string,
  bin: string,
  work: string,
): Promise<{ code: number | null; output: string }> {
  mkdirSync(work);
  return runWithInput('/bin/sh', [], `${line}\n`, {
    cwd: work,
    env: { PATH: bin, HOME: work },
    timeoutMs: 30_000,
  });
}
