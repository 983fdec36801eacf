import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { type RunningProgram, startShell } from './processes.js';
import { which } from './systemd.js';

/**
 * A directory holding only `node` and `curl` (links to this machine's): as PATH, it makes this
 * machine look like one with nothing else installed (no npm), where "Add a machine"'s command
 * is pasted.
 */
export async function nodeAndCurlOnly(bin: string): Promise<string> {
  mkdirSync(bin);
  symlinkSync(process.execPath, join(bin, 'node'));
  symlinkSync((await which('curl')) ?? '/usr/bin/curl', join(bin, 'curl'));
  return bin;
}

/**
 * Runs a pasted command line as a shell would, in `work` (made empty here), with `bin` alone on
 * PATH; resolves once the agent it starts listens.
 */
export function paste(line: string, bin: string, work: string): Promise<RunningProgram> {
  mkdirSync(work);
  return startShell(line, { cwd: work, env: { PATH: bin, HOME: work }, timeoutMs: 30_000 });
}
