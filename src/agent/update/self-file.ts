import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import type { AgentFileName } from '../../shared/wire/agent-update.js';

/**
 * Set by scripts/bundle-agent.mjs (an esbuild `define`) in the one-file agent only; a clone's
 * dist leaves it undeclared, which `typeof` reads as 'undefined' without throwing.
 */
declare const __PANOPTES_AGENT_FILE__: string | undefined;

/** The agent file this process runs from: which of the board's files it is, and where. */
export interface SelfFile {
  name: AgentFileName;
  path: string;
}

function isSea(): boolean {
  try {
    const sea = createRequire(import.meta.url)('node:sea') as { isSea(): boolean };
    return sea.isSea();
  } catch {
    return false;
  }
}

/** This process's own agent file, or null when it runs from a clone's dist (not one file). */
export function selfFile(): SelfFile | null {
  if (isSea()) {
    if (process.platform !== 'linux' || (process.arch !== 'x64' && process.arch !== 'arm64')) {
      return null;
    }
    return { name: `panoptes-agent-linux-${process.arch}`, path: process.execPath };
  }
  const bundled = typeof __PANOPTES_AGENT_FILE__ === 'string' ? __PANOPTES_AGENT_FILE__ : null;
  const script = process.argv[1];
  if (bundled !== 'panoptes-agent.mjs' || script === undefined) return null;
  return { name: bundled, path: resolve(script) };
}
