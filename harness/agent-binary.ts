import { chmodSync, createReadStream, createWriteStream, existsSync } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { ROOT } from './root.js';

/** The build's agent files (scripts/build-agent-binaries.mjs). */
export const AGENT_FILES = `${ROOT}dist/agent-file`;

/** The platforms the build makes an agent binary for (scripts/node-binaries.json). */
export type AgentPlatform = 'linux-x64' | 'linux-arm64';

/** Where the build keeps a platform's binary: as it is, or only gzipped (`<file>.gz`). */
function builtPath(platform: AgentPlatform): string {
  return join(AGENT_FILES, `panoptes-agent-${platform}`);
}

/** Whether the build made the binary of `platform` (kept as it is or as its .gz). */
export function agentBinaryBuilt(platform: AgentPlatform): boolean {
  const path = builtPath(platform);
  return existsSync(path) || existsSync(`${path}.gz`);
}

/**
 * A runnable binary of `platform`: the build's own file when it kept one, else its .gz unzipped
 * into `dir` (the build keeps only the .gz, a third of the bytes; the board serves either).
 */
export async function agentBinaryIn(platform: AgentPlatform, dir: string): Promise<string> {
  const path = builtPath(platform);
  if (existsSync(path)) return path;
  if (!existsSync(`${path}.gz`)) throw new Error(`${path}(.gz) is not built: run npm run build`);
  const out = join(dir, `panoptes-agent-${platform}`);
  await pipeline(createReadStream(`${path}.gz`), createGunzip(), createWriteStream(out));
  chmodSync(out, 0o755);
  return out;
}
