// The pure parts of scripts/build-agent-binaries.mjs (tested in test/agent-binaries-build.test.ts).
import { createHash } from 'node:crypto';

/** The files the board serves from dist/agent-file, besides SHA256SUMS. */
export const AGENT_MJS = 'panoptes-agent.mjs';
export const binaryName = (platform) => `panoptes-agent-${platform}`;

/** Subresource-integrity form (sha512-<base64>) of some bytes, as npm writes it. */
export function integrityOf(bytes) {
  return `sha512-${createHash('sha512').update(bytes).digest('base64')}`;
}

/**
 * Throws unless `got` is the pinned integrity: a Node binary that is not the pinned one is never
 * built into the agent.
 */
export function checkIntegrity(what, pinned, got) {
  if (typeof got !== 'string' || got !== pinned) {
    throw new Error(`${what}: integrity ${got} is not the pinned ${pinned} (refused)`);
  }
}

/** `sha256sum` format, by name: "<hex>  <name>\n" per file. */
export function sumsText(entries) {
  for (const { name, sha256 } of entries) {
    if (!/^[0-9a-f]{64}$/.test(sha256) || !/^[A-Za-z0-9._-]+$/.test(name)) {
      throw new Error(`not a SHA256SUMS line: ${sha256} ${name}`);
    }
  }
  return [...entries]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map(({ name, sha256 }) => `${sha256}  ${name}\n`)
    .join('');
}

/** What the binaries are made of: a change in any of it builds them again. */
export function stampKey({ bundleSha256, pins, flags, builder }) {
  return createHash('sha256')
    .update(JSON.stringify({ bundleSha256, pins, flags, builder }))
    .digest('hex');
}

/** The platform (e.g. linux-x64) that `process.platform`/`process.arch` name, as pinned. */
export function hostPlatform(platform = process.platform, arch = process.arch) {
  return `${platform}-${arch}`;
}
