import { readFileSync } from 'node:fs';
import {
  createServer as createHttp,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttps } from 'node:https';
import { type AddressInfo, createServer as createTcp } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCondition } from '../src/shared/checks/conditions.js';
import { runCheck } from '../src/shared/checks/run-check.js';
import type { HandedCheck } from '../src/shared/checks/wire.js';
import { CHECK_DETAIL_MAX } from '../src/shared/checks/wire.js';
import { makeTestCa } from './helpers/certs.js';
import { type TempDir, tempDir } from './helpers/tmp.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const routes: Record<string, Handler> = {
  '/ok': (_req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ status: 'UP', data: { items: [{ id: 7 }] } }));
  },
  '/down': (_req, res) => {
    res.statusCode = 503;
    res.end('maintenance\n\u001b[31mred\u001b[0m');
  },
  '/moved': (_req, res) => {
    res.statusCode = 302;
    res.setHeader('location', '/ok');
    res.end();
  },
  '/loop': (_req, res) => {
    res.statusCode = 301;
    res.setHeader('location', '/loop');
    res.end();
  },
  '/slow': (_req, res) => {
    setTimeout(() => res.end('late'), 3000).unref();
  },
  '/echo': (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () =>
      res.end(
        JSON.stringify({
          method: req.method,
          token: req.headers['x-token'],
          body: Buffer.concat(chunks).toString(),
        }),
      ),
    );
  },
  '/cut': (_req, res) => {
    res.writeHead(200, { 'content-length': '100' });
    res.write('partial', () => res.socket?.destroy());
  },
  '/huge': (_req, res) => {
    res.end(Buffer.alloc(3 * 1024 * 1024, 'a'));
  },
};

function handler(req: IncomingMessage, res: ServerResponse): void {
  const route = routes[(req.url ?? '/').split('?')[0] ?? '/'];
  if (route === undefined) {
    res.statusCode = 404;
    res.end();
    return;
  }
  route(req, res);
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

function http(name: string, target: string, extra: Partial<HandedCheck> = {}): HandedCheck {
  return {
    name,
    type: 'http',
    target,
    interval_s: 60,
    timeout_s: 2,
    conditions: [],
    http: { method: 'GET', headers: {}, body: '', follow_redirects: true, verify_tls: true },
    ...extra,
  };
}

function tcp(target: string): HandedCheck {
  return { name: 'port', type: 'tcp', target, interval_s: 60, timeout_s: 2, conditions: [] };
}

const conditions = (...texts: string[]) => texts.map(parseCondition);

let dir: TempDir;
let plain: Server;
let secure: Server;
let base: string;
let secureBase: string;

beforeAll(async () => {
  dir = tempDir('panoptes-checks-');
  const ca = makeTestCa(dir);
  const leaf = ca.issue('service');
  plain = createHttp(handler);
  secure = createHttps({ cert: readFileSync(leaf.cert), key: readFileSync(leaf.key) }, handler);
  base = `http://127.0.0.1:${await listen(plain)}`;
  secureBase = `https://127.0.0.1:${await listen(secure)}`;
});

afterAll(() => {
  plain.closeAllConnections();
  secure.closeAllConnections();
  plain.close();
  secure.close();
  dir.cleanup();
});

describe('http checks against a real server', () => {
  it('passes on 200 by default ([STATUS] < 400), with [IP] and conditions on the JSON body', async () => {
    const r = await runCheck(http('api', `${base}/ok`), []);
    expect(r).toMatchObject({ name: 'api', ok: true, detail: '' });
    expect(r.ms).toBeGreaterThanOrEqual(0);
    expect(new Date(r.at).getTime()).not.toBeNaN();
    const c = conditions('[STATUS] == 200', '[BODY].data.items[0].id == 7', '[IP] == 127.0.0.1');
    expect(await runCheck(http('api', `${base}/ok`), c)).toMatchObject({ ok: true });
  });

  it('fails on 503 with the condition as Gatus shows it, and by default', async () => {
    const r = await runCheck(http('api', `${base}/down`), conditions('[STATUS] == 200'));
    expect(r).toMatchObject({ ok: false, detail: '[STATUS] (503) == 200' });
    expect((await runCheck(http('api', `${base}/down`), [])).detail).toBe('[STATUS] (503) < 400');
  });

  it('the detail is one line without control characters', async () => {
    const r = await runCheck(http('api', `${base}/down`), conditions('[BODY] == pat(*ok*)'));
    expect(r.ok).toBe(false);
    expect(r.detail).toMatch(/^\[BODY\] \(maintenance \[31mred \[0m\) == pat\(\*ok\*\)$/);
  });

  it('follows a redirect, or not when follow_redirects is false', async () => {
    expect(await runCheck(http('r', `${base}/moved`), conditions('[STATUS] == 200'))).toMatchObject(
      { ok: true },
    );
    const noFollow = http('r', `${base}/moved`, {
      http: { method: 'GET', headers: {}, body: '', follow_redirects: false, verify_tls: true },
    });
    expect(await runCheck(noFollow, conditions('[STATUS] == 302'))).toMatchObject({ ok: true });
    const loop = await runCheck(http('r', `${base}/loop`), []);
    expect(loop).toMatchObject({ ok: false, detail: 'more than 10 redirects' });
  });

  it('sends the method, headers and body', async () => {
    const check = http('e', `${base}/echo`, {
      http: {
        method: 'POST',
        headers: { 'x-token': 'abc' },
        body: 'hello',
        follow_redirects: true,
        verify_tls: true,
      },
    });
    const c = conditions('[BODY].method == POST', '[BODY].token == abc', '[BODY].body == hello');
    expect(await runCheck(check, c)).toMatchObject({ ok: true, detail: '' });
  });

  it('reads at most 1 MiB of a body without failing', async () => {
    const r = await runCheck(http('big', `${base}/huge`), conditions('len([BODY]) == 1048576'));
    expect(r).toMatchObject({ ok: true });
  });

  it('a server that closes mid-body fails the run with a clear detail', async () => {
    const r = await runCheck(http('cut', `${base}/cut`), []);
    expect(r.ok).toBe(false);
    expect(r.detail).toMatch(/closed before the body ended|aborted|reset/);
  });

  it('a slow server times out at timeout_s, with that as the detail', async () => {
    const started = Date.now();
    const r = await runCheck(http('slow', `${base}/slow`, { timeout_s: 0.5 }), []);
    expect(Date.now() - started).toBeLessThan(2500);
    expect(r).toMatchObject({ ok: false, detail: 'timed out after 0.5 s' });
  });

  it('https: a certificate the system does not trust fails, unless verify_tls is false', async () => {
    const strict = await runCheck(http('tls', `${secureBase}/ok`), []);
    expect(strict.ok).toBe(false);
    expect(strict.detail).toMatch(/certificate/i);
    const lax = http('tls', `${secureBase}/ok`, {
      http: { method: 'GET', headers: {}, body: '', follow_redirects: true, verify_tls: false },
    });
    const r = await runCheck(lax, conditions('[STATUS] == 200', '[CERTIFICATE_EXPIRATION] > 24h'));
    expect(r).toMatchObject({ ok: true, detail: '' });
    expect(r.cert?.fingerprint256).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    expect(r.cert?.issuer).toContain('CN=Panoptes test ca');
    const expires = new Date(r.cert_expires_at ?? '').getTime() - Date.now();
    expect(expires).toBeGreaterThan(24 * 3_600_000);
    expect(expires).toBeLessThan(3 * 24 * 3_600_000);
    const soon = await runCheck(lax, conditions('[CERTIFICATE_EXPIRATION] > 336h'));
    expect(soon.ok).toBe(false);
    expect(soon.detail).toMatch(/^\[CERTIFICATE_EXPIRATION\] \((47|48)h[0-9ms]*\) > 336h$/);
  });

  it('a guard refusal fails the run before any connection, naming the address', async () => {
    let asked = 0;
    const guard = (address: string) => {
      asked++;
      return address === '127.0.0.1' ? 'refused: private address' : null;
    };
    const before = { n: 0 };
    plain.once('connection', () => before.n++);
    const r = await runCheck(http('g', `${base}/ok`), conditions('[CONNECTED] == false'), {
      guard,
    });
    expect(r).toMatchObject({ ok: false });
    expect(r.detail).toContain('refused: private address');
    expect(asked).toBe(1);
    expect(before.n).toBe(0);
  });

  it('a guard is asked for every address a name resolves to, and for each redirect hop', async () => {
    const seen: string[] = [];
    const guard = (address: string) => {
      seen.push(address);
      return null;
    };
    const port = new URL(base).port;
    const r = await runCheck(http('g', `http://localhost:${port}/moved`), [], { guard });
    // localhost may resolve to ::1 first: every checked address is tried, 127.0.0.1 answers.
    expect(r).toMatchObject({ ok: true, detail: '' });
    expect(seen.filter((a) => a === '127.0.0.1')).toHaveLength(2);
  });

  it('a target that is not a URL fails with a clear detail, never throws', async () => {
    const r = await runCheck(http('bad', 'not a url'), []);
    expect(r).toMatchObject({ ok: false, detail: 'not a URL: not a url' });
  });
});

describe('tcp checks against a real port', () => {
  it('connects to an open port, then fails clearly once it is closed', async () => {
    const server = createTcp((socket) => socket.destroy());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const check = tcp(`127.0.0.1:${port}`);
    expect(await runCheck(check, [])).toMatchObject({ ok: true, detail: '' });
    expect(await runCheck(check, conditions('[IP] == 127.0.0.1'))).toMatchObject({ ok: true });
    const asked: string[] = [];
    const guard = (address: string) => {
      asked.push(address);
      return null;
    };
    expect(await runCheck(tcp(`localhost:${port}`), [], { guard })).toMatchObject({ ok: true });
    expect(asked).toContain('127.0.0.1');
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const r = await runCheck(check, []);
    expect(r).toMatchObject({ ok: false, detail: `connection refused (127.0.0.1:${port})` });
    // Conditions on [CONNECTED] alone decide: a closed port can be what is wanted.
    expect(await runCheck(check, conditions('[CONNECTED] == false'))).toMatchObject({
      ok: true,
      detail: '',
    });
    // Any other condition: the probe's error fails the run.
    const other = await runCheck(check, conditions('[RESPONSE_TIME] < 5000'));
    expect(other).toMatchObject({ ok: false, detail: `connection refused (127.0.0.1:${port})` });
  });

  it('reads [v6]:port targets and refuses malformed ones', async () => {
    const server = createTcp((socket) => socket.destroy());
    const v6 = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(0, '::1', () => resolve(true));
    });
    if (v6) {
      const port = (server.address() as AddressInfo).port;
      expect(await runCheck(tcp(`[::1]:${port}`), [])).toMatchObject({ ok: true });
      server.close();
    }
    const bad = await runCheck(tcp('no-port'), []);
    expect(bad).toMatchObject({ ok: false });
    expect(bad.detail).toMatch(/host:port/);
    expect(bad.detail.length).toBeLessThanOrEqual(CHECK_DETAIL_MAX);
  });

  it('a guard refusal fails even `[CONNECTED] == false`', async () => {
    const guard = () => 'refused: private address';
    const r = await runCheck(tcp('127.0.0.1:9'), conditions('[CONNECTED] == false'), { guard });
    expect(r).toMatchObject({
      ok: false,
      detail: 'refused: private address (127.0.0.1 is 127.0.0.1)',
    });
  });
});
