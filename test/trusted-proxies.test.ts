import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningProgram, startBoard } from '../harness/processes.js';
import { eventually, Recorder, writeBoardConfig } from './helpers/fleet.js';
import { scanForSecretsAfterAll } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

const TOKEN = 'proxied-board-token-7c1e9a3b5d'; // secret-scan: token

// No token or key of these tests in any answer, message or line the programs wrote.
scanForSecretsAfterAll(() => ({ secrets: [TOKEN] }));

describe('behind a trusted reverse proxy, the wrong-token limit counts each client', () => {
  const dir = tempDir('panoptes-proxies-');
  const http = new Recorder();
  let behindProxy: RunningProgram;
  let direct: RunningProgram;
  const wrong = (url: string, headers: Record<string, string>) =>
    http.call(`${url}/api/board`, { token: 'a-wrong-token-0123456789', headers });

  beforeAll(async () => {
    // The test talks from 127.0.0.1, so to the first board it is the reverse proxy.
    behindProxy = await startBoard(
      writeBoardConfig(dir, 'p', { board_token: TOKEN, trusted_proxies: ['127.0.0.0/8', '::1'] }),
    );
    direct = await startBoard(writeBoardConfig(dir, 'd', { board_token: TOKEN }));
  });
  afterAll(async () => {
    await behindProxy?.stop();
    await direct?.stop();
    dir.cleanup();
  });

  it('one stale tab behind the proxy is blocked; everyone else behind it is not', async () => {
    const stale = { 'x-forwarded-for': '203.0.113.50, 198.51.100.7' };
    for (let i = 0; i < 20; i += 1) expect((await wrong(behindProxy.url, stale)).status).toBe(401);
    expect((await wrong(behindProxy.url, stale)).status).toBe(429);
    // Another person behind the same proxy, and an agent sending Forwarded: not locked out.
    const other = await http.call(`${behindProxy.url}/api/board`, {
      token: TOKEN,
      headers: { 'x-forwarded-for': '198.51.100.8' },
    });
    expect(other.status).toBe(200);
    const viaForwarded = await http.call(`${behindProxy.url}/api/board`, {
      token: TOKEN,
      headers: { forwarded: 'for="[2001:db8::9]:4711";proto=https' },
    });
    expect(viaForwarded.status).toBe(200);
    const journal = (await http.call(`${behindProxy.url}/api/journal?limit=50`, { token: TOKEN }))
      .json as { entries: { op: string; target: string }[] };
    const refused = journal.entries.filter((e) => e.op === 'auth').map((e) => e.target);
    expect(refused.length).toBeGreaterThan(0);
    expect(new Set(refused)).toEqual(new Set(['198.51.100.7']));
    // The board's output comes through a pipe: the request's log line may come after its answer.
    await eventually(
      async () =>
        behindProxy.output.some((l) => l.includes('"client":"198.51.100.8"')) ? true : undefined,
      'the log line of the request from 198.51.100.8',
    );
  });

  it('without trusted_proxies the forwarding headers are ignored: a client cannot pick its address', async () => {
    for (let i = 0; i < 20; i += 1) {
      const r = await wrong(direct.url, {
        'x-forwarded-for': `198.51.100.${i}`,
        forwarded: `for=192.0.2.${i}`,
      });
      expect(r.status).toBe(401);
    }
    expect((await wrong(direct.url, { 'x-forwarded-for': '198.51.100.99' })).status).toBe(429);
  });
});
