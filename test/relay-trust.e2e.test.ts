import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningProgram, startBoard } from '../harness/processes.js';
import { eventually, Http, REGISTRATION } from './helpers/agent-fixtures.js';
import { writeBoardConfig } from './helpers/fleet.js';
import { scanForSecretsAfterAll } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

const TOKEN = 'relay-trust-board-token-5d2e';
const KEY = 'relay-trust-config-key-0123456789';

/**
 * Who the board trusts with a machine's key: only a location that a report proving that key
 * gave. A registration-token holder who announces a name first (in any case) gets neither the
 * key nor the name; reports keep no control characters anywhere.
 */
describe('the key goes only to a proven location; a keyed name owns its case variants', () => {
  const dir = tempDir('panoptes-relay-trust-');
  let board: RunningProgram;
  let configDir: string;
  let http: Http;
  /** The attacker's address: every request it gets is kept. */
  let trap: Server;
  let trapUrl: string;
  const trapped: { url: string; authorization: string | undefined }[] = [];

  const report = (body: Record<string, unknown>) =>
    http.post('/api/report', { token: REGISTRATION, body });
  const names = async () =>
    ((await http.get('/api/board', { token: TOKEN })).json.machines as { name: string }[]).map(
      (m) => m.name,
    );
  const journal = async () =>
    (await http.get('/api/journal?limit=200', { token: TOKEN })).json.entries as {
      op: string;
      target: string;
      outcome: string;
      detail: string;
    }[];

  beforeAll(async () => {
    trap = createServer((request: IncomingMessage, response) => {
      trapped.push({ url: request.url ?? '', authorization: request.headers.authorization });
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{"ok":true}');
    });
    trap.listen(0, '127.0.0.1');
    await once(trap, 'listening');
    trapUrl = `http://127.0.0.1:${(trap.address() as AddressInfo).port}/`;
    configDir = writeBoardConfig(dir, 'board', {
      board_token: TOKEN,
      registration_token: REGISTRATION,
      sweep_interval: 0.3,
    });
    board = await startBoard(configDir);
    http = new Http(board.url);
  });

  afterAll(async () => {
    await board?.stop();
    trap?.close();
    dir.cleanup();
  });

  it('enrolling a name forgets its unproven announcement; its action is queued, never relayed', async () => {
    expect((await report({ name: 'victim', location: trapUrl })).status).toBe(200);
    expect(await names()).toContain('victim');
    const enrolled = await http.post('/api/machines/victim/enroll', { token: TOKEN });
    expect(enrolled.status).toBe(200);
    const action = await http.post('/api/do/victim/job/start', { token: TOKEN });
    expect(trapped).toEqual([]);
    expect(action.status).toBe(200);
    expect(action.json).toMatchObject({ queued: true, name: 'victim' });
    expect(await names()).not.toContain('victim');
    // The attacker can no longer report under the name without the key.
    expect((await report({ name: 'victim', location: trapUrl })).status).toBe(403);
    expect(trapped).toEqual([]);
    const forgotten = (await journal()).find((e) => e.op === 'forget' && e.target === 'victim');
    expect(forgotten?.detail).toContain('unproven');
  });

  it('a reload that gives a name a key forgets its unproven announcement', async () => {
    expect((await report({ name: 'victim2', location: trapUrl })).status).toBe(200);
    writeBoardConfig(dir, 'board', {
      board_token: TOKEN,
      registration_token: REGISTRATION,
      sweep_interval: 0.3,
      announced_keys: { victim2: KEY },
    });
    process.kill(board.pid, 'SIGHUP');
    await eventually(
      async () => ((await names()).includes('victim2') ? undefined : true),
      'victim2 forgotten at the reload',
    );
    const action = await http.post('/api/do/victim2/job/start', { token: TOKEN });
    expect(action.json).toMatchObject({ queued: true });
    expect(trapped).toEqual([]);
  });

  it('a name enrolled wins: its case variants are refused, and an unproven one gives way', async () => {
    expect((await http.post('/api/machines/case1/enroll', { token: TOKEN })).status).toBe(200);
    const squat = await report({ name: 'CASE1', location: trapUrl });
    expect(squat.status).toBe(409);
    expect(squat.json.detail).toContain("'case1'");
    expect(await names()).not.toContain('CASE1');
    // Announced first, then enrolled in another case: the enrollment wins.
    expect((await report({ name: 'CASE2', location: trapUrl })).status).toBe(200);
    expect((await http.post('/api/machines/case2/enroll', { token: TOKEN })).status).toBe(200);
    expect(await names()).not.toContain('CASE2');
    expect((await report({ name: 'CASE2', location: trapUrl })).status).toBe(409);
    // And a variant of a name with a key in board.yaml.
    expect((await report({ name: 'VICTIM2', location: trapUrl })).status).toBe(409);
  });

  it('refuses control and bidi characters in every string a report carries', async () => {
    const base = { name: 'clean1', location: 'http://127.0.0.1:9/' };
    const refused = [
      { hostname: 'host\u001b[31mred' },
      { platform: 'linux\r\n✖ web1 is down' },
      { arch: 'x64\u0000' },
      { version: '1.0\u202e' },
      { time: '2026-11-28T00:00:00Z\n' },
      { disks: [{ path: '/data\nfake', total: 10, free: 5, used: 5 }] },
      { extra: { nested: ['ok', 'bad\u2066'] } },
      { 'key\u0007': 'value' },
    ];
    for (const fields of refused) {
      const answer = await report({ ...base, ...fields });
      expect(answer.status, JSON.stringify(fields)).toBe(422);
      expect(answer.json.detail[0].type).toBe('string_pattern_mismatch');
    }
    const fine = await report({
      ...base,
      hostname: 'host-1',
      disks: [{ path: '/data\tx', total: 10, free: 5, used: 5 }],
      extra: { note: 'tab\tis fine' },
    });
    expect(fine.status).toBe(200);
  });

  scanForSecretsAfterAll(() => ({
    secrets: [TOKEN, KEY, REGISTRATION],
    dirs: [dir.path],
    // The enroll answer holds the registration token by design (in its command).
    allowText: (text) => text.includes('"agent_sha256"'),
  }));
});
