import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer as createTcpServer, type Server, type Socket } from 'node:net';
import { createServer } from 'node:tls';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { makeTestCa, type TestCa } from '../../../../test/helpers/certs.js';
import { type TempDir, tempDir } from '../../../../test/helpers/tmp.js';
import { parseCondition } from '../conditions.js';
import type { ProbeOptions } from '../observation.js';
import { runCheck } from '../run-check.js';
import type { HandedCheck, RunType } from '../wire.js';
import { tlsProbe } from './tls.js';

const DAY_MS = 86_400_000;

/** A TLS server on 127.0.0.1 serving one certificate; it notes the SNI names it was sent. */
async function serve(
  pair: { cert: string; key: string },
  port = 0,
): Promise<{ server: Server; port: number; names: string[] }> {
  const names: string[] = [];
  const server = createServer({
    cert: readFileSync(pair.cert),
    key: readFileSync(pair.key),
    SNICallback: (name, done) => {
      names.push(name);
      done(null, undefined);
    },
  });
  server.on('tlsClientError', () => {});
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const address = server.address();
  return { server, port: typeof address === 'object' && address ? address.port : 0, names };
}

function close(server: Server): Promise<unknown> {
  return new Promise((resolve) => server.close(resolve));
}

function fingerprint(certFile: string): string {
  const out = execFileSync(
    'openssl',
    ['x509', '-in', certFile, '-noout', '-fingerprint', '-sha256'],
    { encoding: 'utf8' },
  );
  return out.split('=')[1]?.trim().toUpperCase() ?? '';
}

function tlsCheck(target: string, hostname?: string): HandedCheck {
  return handed({
    name: 'tls',
    type: 'tls',
    target,
    interval_s: 60,
    timeout_s: 2,
    conditions: [],
    ...(hostname ? { tls: { hostname } } : {}),
  });
}

function options(extra: Partial<ProbeOptions> = {}): ProbeOptions {
  return { signal: AbortSignal.timeout(2000), now: () => new Date(), ...extra };
}

describe('tls probe against servers on 127.0.0.1', () => {
  let dir: TempDir;
  let ca: TestCa;
  let stranger: TestCa;
  const servers: Server[] = [];
  const savedExtra = process.env.NODE_EXTRA_CA_CERTS;

  beforeAll(() => {
    dir = tempDir();
    ca = makeTestCa(dir, 'ca');
    stranger = makeTestCa(dir, 'stranger');
    // The agent's way to trust a private CA: the same variable Node's own clients read.
    process.env.NODE_EXTRA_CA_CERTS = ca.caFile;
  });
  afterEach(async () => {
    await Promise.all(servers.splice(0).map(close));
  });
  afterAll(() => {
    if (savedExtra === undefined) delete process.env.NODE_EXTRA_CA_CERTS;
    else process.env.NODE_EXTRA_CA_CERTS = savedExtra;
    dir.cleanup();
  });

  async function started(pair: { cert: string; key: string }, port = 0) {
    const s = await serve(pair, port);
    servers.push(s.server);
    return s;
  }

  it('reads a trusted certificate: issuer, subject, fingerprint, expiry; SNI is the hostname', async () => {
    const pair = ca.issue('good', { days: 90 });
    const { port, names } = await started(pair);
    const seen = await tlsProbe(tlsCheck(`127.0.0.1:${port}`, 'localhost'), options());
    expect(seen.error).toBeUndefined();
    expect(seen).toMatchObject({ connected: true, ip: '127.0.0.1' });
    expect(seen.cert).toMatchObject({
      issuer: 'CN=Panoptes test ca',
      subject: 'CN=good',
      fingerprint256: fingerprint(pair.cert),
    });
    expect(seen.certificateExpirationMs).toBeGreaterThan(89 * DAY_MS);
    expect(seen.certificateExpirationMs).toBeLessThan(91 * DAY_MS);
    expect(seen.responseTimeMs).toBeGreaterThan(0);
    expect(names).toEqual(['localhost']);
  });

  it('checks the target host itself when no hostname is given (an IP in the certificate)', async () => {
    const { port, names } = await started(ca.issue('by-ip', { days: 90 }));
    const seen = await tlsProbe(tlsCheck(`127.0.0.1:${port}`), options());
    expect(seen).toMatchObject({ connected: true });
    expect(seen.error).toBeUndefined();
    // No SNI for an address (RFC 6066).
    expect(names).toEqual([]);
  });

  it('measures expiry from options.now: a certificate ending in 2 days is under 3 days', async () => {
    const { port } = await started(ca.issue('soon', { days: 2 }));
    const now = new Date();
    const seen = await tlsProbe(
      tlsCheck(`127.0.0.1:${port}`, 'localhost'),
      options({ now: () => now }),
    );
    expect(seen.error).toBeUndefined();
    expect(seen.certificateExpirationMs).toBeLessThan(3 * DAY_MS);
    expect(seen.certificateExpirationMs).toBeGreaterThan(DAY_MS);
    expect(seen.certificateExpirationMs).toBe((seen.cert?.notAfter.getTime() ?? 0) - now.getTime());
    const later = new Date(now.getTime() + 3 * DAY_MS);
    const after = await tlsProbe(
      tlsCheck(`127.0.0.1:${port}`, 'localhost'),
      options({ now: () => later }),
    );
    expect(after.certificateExpirationMs).toBeLessThan(0);
  });

  it('says a certificate for another name is not valid for ours, and still shows it', async () => {
    const { port } = await started(
      ca.issue('elsewhere', { days: 90, altNames: 'DNS:other.example' }),
    );
    const seen = await tlsProbe(tlsCheck(`127.0.0.1:${port}`, 'localhost'), options());
    expect(seen).toMatchObject({
      connected: true,
      error: 'certificate is not valid for localhost',
    });
    expect(seen.cert?.subject).toBe('CN=elsewhere');
    expect(seen.certificateExpirationMs).toBeGreaterThan(89 * DAY_MS);
  });

  it('says a certificate from an unknown CA is not trusted, and still shows its expiry', async () => {
    const { port } = await started(stranger.issue('untrusted', { days: 30 }));
    const seen = await tlsProbe(tlsCheck(`127.0.0.1:${port}`, 'localhost'), options());
    expect(seen).toMatchObject({
      connected: true,
      error: 'certificate not trusted: unknown issuer',
    });
    expect(seen.cert?.issuer).toBe('CN=Panoptes test stranger');
    expect(seen.certificateExpirationMs).toBeGreaterThan(29 * DAY_MS);
    // Run as a check, the untrusted certificate fails even a [CONNECTED]-only condition.
    const connected = [parseCondition('[CONNECTED] == true')];
    const result = await runCheck(tlsCheck(`127.0.0.1:${port}`, 'localhost'), connected);
    expect(result).toMatchObject({ ok: false, detail: 'certificate not trusted: unknown issuer' });
  });

  it('sees a new fingerprint when the server restarts with a new key', async () => {
    const first = ca.issue('before', { days: 90 });
    const { server, port } = await started(first);
    const seenBefore = await tlsProbe(tlsCheck(`127.0.0.1:${port}`, 'localhost'), options());
    await close(server);
    const second = ca.issue('after', { days: 90 });
    await started(second, port);
    const seenAfter = await tlsProbe(tlsCheck(`127.0.0.1:${port}`, 'localhost'), options());
    expect(seenBefore.cert?.fingerprint256).toBe(fingerprint(first.cert));
    expect(seenAfter.cert?.fingerprint256).toBe(fingerprint(second.cert));
    expect(seenAfter.cert?.fingerprint256).not.toBe(seenBefore.cert?.fingerprint256);
    expect(seenAfter.error).toBeUndefined();
  });

  it('asks the guard for the resolved address and does not connect when it refuses', async () => {
    const { server, port } = await started(ca.issue('guarded', { days: 90 }));
    let connections = 0;
    server.on('connection', () => connections++);
    const asked: string[] = [];
    const guard = (address: string) => {
      asked.push(address);
      return 'refused: private address';
    };
    const seen = await tlsProbe(tlsCheck(`localhost:${port}`), options({ guard }));
    expect(seen).toMatchObject({ connected: false, error: 'refused: private address' });
    expect(asked).toHaveLength(1);
    expect(['127.0.0.1', '::1']).toContain(asked[0]);
    expect(connections).toBe(0);
  });

  it('reports a closed port and a server that never finishes the handshake', async () => {
    const closed = await serve(ca.issue('gone', { days: 90 }));
    await close(closed.server);
    const refused = await tlsProbe(tlsCheck(`127.0.0.1:${closed.port}`), options());
    expect(refused).toMatchObject({ connected: false, error: 'tls: connection refused' });

    const held: Socket[] = [];
    const mute = createTcpServer((socket) => held.push(socket));
    await new Promise<void>((resolve) => mute.listen(0, '127.0.0.1', resolve));
    const address = mute.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const seen = await tlsProbe(
      tlsCheck(`127.0.0.1:${port}`),
      options({ signal: AbortSignal.timeout(300) }),
    );
    expect(seen).toMatchObject({ connected: false, error: 'timed out after 2s', ip: '127.0.0.1' });
    for (const socket of held) socket.destroy();
    await close(mute);
  });

  it('refuses a target it cannot read without connecting', async () => {
    const seen = await tlsProbe(tlsCheck('127.0.0.1:99999'), options());
    expect(seen).toMatchObject({ connected: false, error: "tls target not a port: '99999'" });
  });
});

/** A check as handed to a runner (HandedCheck's `type` reads as never under the test tsconfig). */
function handed(check: Omit<HandedCheck, 'type'> & { type: RunType }): HandedCheck {
  return check as HandedCheck;
}
