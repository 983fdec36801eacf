import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningProgram, startBoard } from '../harness/processes.js';
import { writeBoardConfig } from './helpers/fleet.js';
import { tempDir } from './helpers/tmp.js';

const TOKEN = 'header-board-token-0123456789';
/** The authenticating proxy's address: another loopback address than the tests' own. */
const PROXY = '127.0.0.2';

interface Answer {
  status: number;
  body: unknown;
}

describe('auth.trusted_header over real HTTP: believed only from its proxies, groups mapped', () => {
  const dir = tempDir('panoptes-header-');
  let board: RunningProgram;

  beforeAll(async () => {
    board = await startBoard(
      writeBoardConfig(dir, 'board', {
        board_token: TOKEN,
        auth: {
          trusted_header: {
            user: 'X-Forwarded-User',
            groups: 'X-Forwarded-Groups',
            proxies: [`${PROXY}/32`],
            roles: [
              { group: 'watchers', role: 'viewer' },
              { group: 'fra-ops', role: 'operator', selector: 'site=fra' },
              { group: 'admins', role: 'admin' },
            ],
          },
        },
      }),
    );
  });

  afterAll(async () => {
    await board?.stop();
    dir.cleanup();
  });

  /** A request from `from` (a local address the socket is bound to) with `headers`. */
  const call = (
    from: string,
    method: string,
    path: string,
    headers: Record<string, string>,
  ): Promise<Answer> => {
    const url = new URL(path, board.url);
    return new Promise((resolve, reject) => {
      const req = httpRequest(
        { host: url.hostname, port: url.port, path, method, headers, localAddress: from },
        (res) => {
          let text = '';
          res.on('data', (c: Buffer) => {
            text += c.toString('utf8');
          });
          res.on('end', () => {
            let body: unknown = text;
            try {
              body = JSON.parse(text);
            } catch {
              // not JSON
            }
            resolve({ status: res.statusCode ?? 0, body });
          });
        },
      );
      req.on('error', reject);
      req.end();
    });
  };
  const person = (groups?: string) => ({
    'x-forwarded-user': 'dana',
    ...(groups === undefined ? {} : { 'x-forwarded-groups': groups }),
  });

  it('believes the headers from its proxy: the person, via header, with the mapped bindings', async () => {
    expect(await call(PROXY, 'GET', '/api/me', person('watchers, fra-ops'))).toEqual({
      status: 200,
      body: {
        name: 'dana',
        via: 'header',
        bindings: [
          { role: 'viewer', selector: null },
          { role: 'operator', selector: 'site=fra' },
        ],
      },
    });
    expect(await call(PROXY, 'GET', '/api/me', person('admins'))).toMatchObject({
      status: 200,
      body: { bindings: [{ role: 'admin', selector: null }] },
    });
  });

  it('does not believe the same headers from any other address (401)', async () => {
    const answer = await call('127.0.0.1', 'GET', '/api/me', person('admins'));
    expect(answer).toEqual({ status: 401, body: { detail: 'Not authenticated' } });
  });

  it('gives no role without a groups header, or with groups nothing maps', async () => {
    expect((await call(PROXY, 'GET', '/api/me', person())).status).toBe(401);
    expect((await call(PROXY, 'GET', '/api/me', person('strangers'))).status).toBe(401);
    expect((await call(PROXY, 'GET', '/api/me', person(''))).status).toBe(401);
  });

  it('holds a person to the role their groups give', async () => {
    const here = { origin: board.url };
    const viewer = await call(PROXY, 'POST', '/api/notify/test', {
      ...person('watchers'),
      ...here,
    });
    expect(viewer).toEqual({ status: 403, body: { detail: 'This needs the admin role' } });
    const admin = await call(PROXY, 'POST', '/api/notify/test', { ...person('admins'), ...here });
    expect([401, 403]).not.toContain(admin.status);
  });

  it('refuses a change with the headers from a foreign Origin (403), and takes it from its own', async () => {
    const foreign = await call(PROXY, 'POST', '/auth/logout', {
      ...person('watchers'),
      origin: 'https://evil.example',
    });
    expect(foreign).toEqual({ status: 403, body: { detail: 'Cross-site request refused' } });
    const unsaid = await call(PROXY, 'POST', '/auth/logout', person('watchers'));
    expect(unsaid.status).toBe(403);
    const own = await call(PROXY, 'POST', '/auth/logout', {
      ...person('watchers'),
      origin: board.url,
    });
    expect(own.status).toBe(200);
  });
});
