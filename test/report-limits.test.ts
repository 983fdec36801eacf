import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningProgram, startBoard } from '../harness/processes.js';
import { keyProof } from '../src/shared/wire/key-proof.js';
import { closedPort, eventually, Recorder, writeBoardConfig } from './helpers/fleet.js';
import { expectNoSecrets } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

const TOKEN = 'limits-board-token-5e7a9c1b3d'; // secret-scan: token
const REGISTRATION = 'limits-registration-6f8b0d2a4c'; // secret-scan: token
const KEY = 'limits-lab-key-7a9c1e3b5d'; // secret-scan: key
const SECRETS = [TOKEN, REGISTRATION, KEY];

interface Entry {
  op: string;
  target: string;
  outcome: string;
  status: number | null;
  detail: string;
}
interface Record {
  name: string;
  origin: string;
  verified?: boolean;
  location: string;
}

/**
 * What a holder of the registration token can do with a report is bounded: the location's form
 * and length, names that differ only in case, names without a key, and how much of the journal
 * refused reports may take.
 */
describe('the limits on what a report can do', () => {
  const dir = tempDir('panoptes-report-limits-');
  const http = new Recorder();
  let board: RunningProgram;
  let strict: RunningProgram;
  const report = (url: string, body: unknown) =>
    http.call(`${url}/api/report`, {
      method: 'POST',
      token: REGISTRATION,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const journal = async (url: string): Promise<Entry[]> =>
    (
      (await http.call(`${url}/api/journal?limit=10000`, { token: TOKEN })).json as {
        entries: Entry[];
      }
    ).entries;
  const machines = async (url: string): Promise<Record[]> =>
    ((await http.call(`${url}/api/board`, { token: TOKEN })).json as { machines: Record[] })
      .machines;

  beforeAll(async () => {
    const dead = await closedPort();
    const machine = { url: `http://127.0.0.1:${dead}`, key: 'limits-machine-key-0123' };
    board = await startBoard(
      writeBoardConfig(dir, 'b', {
        board_token: TOKEN,
        registration_token: REGISTRATION,
        sweep_interval: 60,
        machines: [{ name: 'alpha', ...machine }],
      }),
    );
    strict = await startBoard(
      writeBoardConfig(dir, 's', {
        board_token: TOKEN,
        registration_token: REGISTRATION,
        announced_keys_only: true,
        announced_keys: { keyed: KEY },
      }),
    );
  });
  afterAll(async () => {
    await board?.stop();
    await strict?.stop();
    expectNoSecrets({
      secrets: SECRETS,
      texts: [...http.bodies, ...(board?.output ?? []), ...(strict?.output ?? [])],
      dirs: [dir.path],
    });
    dir.cleanup();
  });

  it('a location is an absolute http(s) URL of at most 2,048 characters', async () => {
    const long = `http://x.example/${'a'.repeat(60_000)}`;
    const r = await report(board.url, { name: 'big1', location: long });
    expect(r.status).toBe(422);
    expect(r.json).toMatchObject({
      detail: [{ type: 'string_too_long', loc: ['body', 'location'] }],
    });
    for (const location of ['javascript:alert(1)', '/relative', 'http://', 'http://a b/']) {
      const bad = await report(board.url, { name: 'big1', location });
      expect(bad.status, location).toBe(422);
      expect((bad.json as { detail: { loc: unknown[] }[] }).detail[0]?.loc).toEqual([
        'body',
        'location',
      ]);
    }
    expect((await machines(board.url)).some((m) => m.name === 'big1')).toBe(false);
    // At the limit it is taken, and the journal keeps no more than 200 characters of it.
    const edge = `http://x.example/${'b'.repeat(2048 - 17)}`;
    expect(edge).toHaveLength(2048);
    expect((await report(board.url, { name: 'edge1', location: edge })).status).toBe(200);
    const announced = await eventually(
      async () =>
        (await journal(board.url)).find((e) => e.op === 'announce' && e.target === 'edge1'),
      'the announcement in the journal',
    );
    expect(announced.detail.length).toBeLessThanOrEqual(220);
    expect(announced.detail).toContain('…');
  });

  it('names are unique without regard to case: no ALPHA listed beside alpha', async () => {
    const configured = await report(board.url, { name: 'ALPHA', location: 'http://evil.example/' });
    expect(configured.status).toBe(409);
    expect((configured.json as { detail: string }).detail).toContain("'alpha'");
    expect(
      (await report(board.url, { name: 'lab1', location: 'http://lab1.example/' })).status,
    ).toBe(200);
    expect(
      (await report(board.url, { name: 'Lab1', location: 'http://evil.example/' })).status,
    ).toBe(409);
    const names = (await machines(board.url)).map((m) => m.name);
    expect(names.filter((n) => n.toLowerCase() === 'alpha')).toEqual(['alpha']);
    expect(names.filter((n) => n.toLowerCase() === 'lab1')).toEqual(['lab1']);
    const refused = (await journal(board.url)).filter(
      (e) => e.op === 'report' && e.outcome === 'refused' && e.status === 409,
    );
    expect(refused.map((e) => e.target)).toEqual(expect.arrayContaining(['ALPHA', 'Lab1']));
    // Actions stay bound to the exact name.
    const wrongCase = await http.call(`${board.url}/api/do/LAB1/job/start`, {
      method: 'POST',
      token: TOKEN,
    });
    expect(wrongCase.status).toBe(404);
  });

  it('announced_keys_only refuses names without a key; records say whether a key was proved', async () => {
    const unkeyed = await report(strict.url, { name: 'lab9', location: 'http://lab9.example/' });
    expect(unkeyed.status).toBe(403);
    const location = 'http://keyed.example/';
    const keyed = await report(strict.url, {
      name: 'keyed',
      location,
      key_proof: keyProof(KEY, 'keyed', location),
    });
    expect(keyed.status).toBe(200);
    expect(await machines(strict.url)).toEqual([
      expect.objectContaining({ name: 'keyed', verified: true }),
    ]);
    const entries = await journal(strict.url);
    expect(
      entries.some((e) => e.target === 'lab9' && e.outcome === 'refused' && e.status === 403),
    ).toBe(true);
    // On a board without the option an unkeyed machine is listed, marked unverified.
    expect((await machines(board.url)).find((m) => m.name === 'lab1')).toMatchObject({
      verified: false,
    });
    // Configured machines carry no such mark.
    expect((await machines(board.url)).find((m) => m.name === 'alpha')).not.toHaveProperty(
      'verified',
    );
  });

  it('12,000 refused reports do not push what was done out of the journal', async () => {
    expect(
      (await report(board.url, { name: 'gone1', location: 'http://gone.example/' })).status,
    ).toBe(200);
    const forgotten = await http.call(`${board.url}/api/machines/gone1`, {
      method: 'DELETE',
      token: TOKEN,
    });
    expect(forgotten.status).toBe(200);
    const started = Date.now();
    const body = JSON.stringify({ name: 'alpha', location: 'http://evil.example/' });
    let refused = 0;
    const worker = async () => {
      while (refused < 12_000) {
        refused += 1;
        const r = await fetch(`${board.url}/api/report`, {
          method: 'POST',
          headers: { authorization: `Bearer ${REGISTRATION}`, 'content-type': 'application/json' },
          body,
        });
        await r.arrayBuffer();
        expect(r.status).toBe(409);
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    const entries = await journal(board.url);
    expect(
      entries.some((e) => e.op === 'forget' && e.target === 'gone1' && e.outcome === 'forgotten'),
    ).toBe(true);
    // At most 100 one by one per minute (plus a summary line each): a loaded machine may take
    // more than one minute for the 12,000.
    const minutes = Math.ceil((Date.now() - started) / 60_000) + 1;
    const reportRefusals = entries.filter(
      (e) => e.op === 'report' && e.outcome === 'refused' && e.status !== null,
    );
    expect(reportRefusals.length).toBeLessThanOrEqual(100 * minutes);
    expect(reportRefusals.length).toBeLessThan(1000);
    expect(
      entries.some((e) => e.detail.includes('more are counted, not journaled one by one')),
    ).toBe(true);
  }, 120_000);
});
