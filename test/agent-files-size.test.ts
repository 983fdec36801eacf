import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AGENT_FILES, agentBinaryBuilt } from '../harness/agent-binary.js';

const PLATFORMS = ['linux-x64', 'linux-arm64'] as const;
const built = PLATFORMS.every((p) => agentBinaryBuilt(p));

/**
 * The build's agent files take a third of what they did: each ~150 MB binary is kept only as
 * its .gz (the board serves it to every client: test/agent-files-gzip-only.e2e.test.ts), not
 * twice; the one-file agent stays with its .gz (1.6 MB).
 */
describe.skipIf(!built)('the size of the built agent files', () => {
  it('keeps each binary in one form, gzipped, and the whole under 120 MB', () => {
    for (const p of PLATFORMS) {
      expect(existsSync(join(AGENT_FILES, `panoptes-agent-${p}`))).toBe(false);
      expect(existsSync(join(AGENT_FILES, `panoptes-agent-${p}.gz`))).toBe(true);
    }
    const bytes = readdirSync(AGENT_FILES)
      .map((name) => statSync(join(AGENT_FILES, name)).size)
      .reduce((a, b) => a + b, 0);
    expect(bytes).toBeLessThan(120e6);
  });
});
