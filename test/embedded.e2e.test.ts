import { readFileSync, statSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { startProgram } from '../harness/processes.js';
import { eventually, Recorder } from './helpers/fleet.js';
import { scanForSecretsAfterAll } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

interface BoardJson {
  machines: {
    name: string;
    state: string;
    overview: { hostname?: string; cpus?: number } | null;
  }[];
}

describe('npm start with no config: the embedded default', () => {
  const dir = tempDir();
  const http = new Recorder();
  const env = { PANOPTES_DATA_DIR: `${dir.path}/data` };
  afterAll(() => dir.cleanup());

  it('is a live board of this machine, with tokens made once and kept', async () => {
    const first = await startProgram('start', [], { env });
    let token: string;
    try {
      const line = await eventually(
        async () => first.output.find((l) => l.includes('/?token=')),
        'the UI address',
      );
      const match = /(http:\/\/127\.0\.0\.1:\d+)\/\?token=(\S+)/.exec(line);
      expect(match).not.toBeNull();
      token = match?.[2] ?? '';
      expect(match?.[1]).toBe(first.url);
      expect(first.output.filter((l) => l.includes('?token=')).length).toBe(1);
      const up = await eventually(async () => {
        const view = (await http.call(`${first.url}/api/board`, { token })).json as BoardJson;
        return view.machines[0]?.state === 'up' ? view : undefined;
      }, 'localhost up');
      expect(up.machines.map((m) => m.name)).toEqual(['localhost']);
      expect(up.machines[0]?.overview?.cpus).toBeGreaterThan(0);
      const file = `${dir.path}/data/embedded-tokens.json`;
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(readFileSync(file, 'utf8')).toContain(token);
      // The token appears in the one address line and nowhere else: not in a log line.
      expect(first.output.filter((l) => l.includes(token))).toEqual([
        `  ${first.url}/?token=${token}`,
      ]);
    } finally {
      expect((await first.stop()).code).toBe(0);
    }
    const second = await startProgram('start', [], { env });
    try {
      const line = await eventually(
        async () => second.output.find((l) => l.includes('/?token=')),
        'the UI address',
      );
      expect(line).toContain(`?token=${token}`);
      expect((await http.call(`${second.url}/api/board`, { token })).status).toBe(200);
      // "Add a machine" works on the embedded default; only enrolled names may report.
      const enrolled = await http.call(`${second.url}/api/machines/lab7/enroll`, {
        method: 'POST',
        token,
      });
      expect(enrolled.status).toBe(200);
      const tokens = JSON.parse(readFileSync(`${dir.path}/data/embedded-tokens.json`, 'utf8')) as {
        registration_token: string;
      };
      const stranger = await http.call(`${second.url}/api/report`, {
        method: 'POST',
        token: tokens.registration_token,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'stranger', location: 'http://127.0.0.1:1' }),
      });
      expect(stranger.status).toBe(403);
    } finally {
      await second.stop();
    }
  });
  // Every answer, message, log line and data file, searched for the generated tokens; the one
  // address line with ?token= is there by design, and so is the 0600 tokens file.
  scanForSecretsAfterAll(() => ({
    secrets: Object.values(
      JSON.parse(readFileSync(`${dir.path}/data/embedded-tokens.json`, 'utf8')) as Record<
        string,
        string
      >,
    ).filter((v) => typeof v === 'string' && v.length >= 16),
    allowLine: (line) => /^ {2}http:\/\/127\.0\.0\.1:\d+\/\?token=\S+$/.test(line),
    // The enroll answer holds the registration token in its command, by design.
    allowText: (text) => text.startsWith('{"name":"lab7","key":'),
    dirs: [dir.path],
  }));
});
