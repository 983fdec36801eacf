import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/helpers/tmp.js';
import { AgentFiles } from './agent-files.js';
import { ServedReleases } from './served-releases.js';

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

describe('ServedReleases', () => {
  it('gives the served files’ sums synchronously, and says when a file came, changed or went', async () => {
    const dir = tempDir('panoptes-releases-');
    try {
      const releases = new ServedReleases(new AgentFiles(() => dir.path));
      expect(await releases.refresh()).toBe(false);
      expect(releases.sha256('panoptes-agent.mjs')).toBeNull();
      dir.write('panoptes-agent.mjs', 'one');
      expect(await releases.refresh()).toBe(true);
      expect(releases.sha256('panoptes-agent.mjs')).toBe(sha('one'));
      expect(await releases.refresh()).toBe(false);
      dir.write('panoptes-agent.mjs', 'two, longer');
      expect(await releases.refresh()).toBe(true);
      expect(releases.sha256('panoptes-agent.mjs')).toBe(sha('two, longer'));
      rmSync(join(dir.path, 'panoptes-agent.mjs'));
      expect(await releases.refresh()).toBe(true);
      expect(releases.sha256('panoptes-agent.mjs')).toBeNull();
    } finally {
      dir.cleanup();
    }
  });
});
