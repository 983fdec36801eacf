import { createHash } from 'node:crypto';
import { utimesSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/helpers/tmp.js';
import { AgentFiles } from './agent-files.js';

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

describe('AgentFiles', () => {
  it('lists the agent files there, in order, with SHA256SUMS of what is there now', async () => {
    const dir = tempDir('panoptes-agent-files-');
    dir.write('panoptes-agent-linux-x64', 'binary one');
    dir.write('panoptes-agent.mjs', 'export {}');
    dir.write('other-file', 'not served');
    const files = new AgentFiles(() => dir.path);
    expect((await files.list()).map((f) => [f.name, f.sha256, f.size])).toEqual([
      ['panoptes-agent.mjs', sha('export {}'), 9],
      ['panoptes-agent-linux-x64', sha('binary one'), 10],
    ]);
    expect(await files.sums()).toBe(
      `${sha('export {}')}  panoptes-agent.mjs\n${sha('binary one')}  panoptes-agent-linux-x64\n`,
    );
    expect(await files.get('panoptes-agent-linux-arm64')).toBeNull();
    // A replaced file is hashed again.
    const path = dir.write('panoptes-agent.mjs', 'export const x = 2;');
    utimesSync(path, new Date(), new Date(Date.now() + 5000));
    expect((await files.get('panoptes-agent.mjs'))?.sha256).toBe(sha('export const x = 2;'));
    dir.cleanup();
  });
});
