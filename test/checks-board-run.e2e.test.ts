import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningProgram, startBoard } from '../harness/processes.js';
import { eventually, writeBoardConfig } from './helpers/fleet.js';
import { tempDir } from './helpers/tmp.js';

const TOKEN = 'board-run-token-5e1c9a7d3b'; // secret-scan: token

interface Runner {
  machine: string;
  ok: boolean;
  detail: string;
}

describe('checks run by the board: private addresses refused after DNS, unless allowed', () => {
  const dir = tempDir('panoptes-boardrun-');
  const paths: string[] = [];
  let target: Server;
  let port: number;
  let board: RunningProgram;
  let configDir: string;

  const check = (name: string, path: string, extra: Record<string, unknown> = {}) => ({
    name,
    type: 'http',
    target: `http://${name === 'named' ? 'localhost' : '127.0.0.1'}:${port}${path}`,
    interval: '1s',
    timeout: '2s',
    runners: { board: true },
    ...extra,
  });
  const runners = async (): Promise<Map<string, Runner | undefined>> => {
    const r = await fetch(`${board.url}/api/checks`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    const checks = (await r.json()) as { name: string; runners: Runner[] }[];
    return new Map(checks.map((c) => [c.name, c.runners.find((x) => x.machine === '@board')]));
  };

  beforeAll(async () => {
    target = createServer((req, res) => {
      paths.push(req.url ?? '');
      res.end('ok');
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    port = (target.address() as AddressInfo).port;
    configDir = writeBoardConfig(dir, 'b', {
      board_token: TOKEN,
      checks: [
        check('refused', '/refused'),
        check('named', '/named'),
        check('allowed', '/allowed', { allow_private: true }),
      ],
    });
    board = await startBoard(configDir);
  });
  afterAll(async () => {
    await board?.stop();
    await new Promise((resolve) => target?.close(resolve));
    dir.cleanup();
  });

  it('refuses 127.0.0.1 and a name resolving to it ("refused: private address"), runs the allowed one', async () => {
    const seen = await eventually(async () => {
      const r = await runners();
      return [...r.values()].every((x) => x !== undefined) ? r : undefined;
    }, 'a run of each check');
    expect(seen.get('allowed')).toMatchObject({ ok: true, detail: '' });
    for (const name of ['refused', 'named']) {
      const r = seen.get(name);
      expect(r?.ok, name).toBe(false);
      expect(r?.detail, name).toContain('refused: private address');
    }
    expect(seen.get('named')?.detail).toContain('localhost');
    // The refused checks never reached the target: refused before the connect.
    expect(paths.filter((p) => p !== '/allowed')).toEqual([]);
    // Runs again at its interval.
    const before = paths.length;
    await eventually(
      async () => (paths.length >= before + 2 ? true : undefined),
      'two more runs of the allowed check',
    );
  }, 30_000);

  it('follows a reload: a check removed from board.yaml is no longer run', async () => {
    expect(paths).toContain('/allowed');
    writeBoardConfig(dir, 'b', {
      board_token: TOKEN,
      checks: [check('refused', '/refused')],
    });
    board.child.kill('SIGHUP');
    await eventually(
      async () => ((await runners()).has('allowed') ? undefined : true),
      'the reload',
    );
    // A run under way at the reload may still land; after it, none.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const count = paths.length;
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(paths.length).toBe(count);
  }, 30_000);
});
