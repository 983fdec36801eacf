import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { performance } from 'node:perf_hooks';
import {
  checkServerIdentity,
  connect,
  createSecureContext,
  type PeerCertificate,
  rootCertificates,
  type SecureContext,
} from 'node:tls';
import type { Observation, Probe } from '../observation.js';
import {
  aborted,
  describeError,
  failed,
  resolveGuarded,
  splitHostPort,
  timedOut,
} from './probe-address.js';

/** Where distributions keep the system's CA bundle (the first one found is used). */
const SYSTEM_BUNDLES = [
  '/etc/ssl/certs/ca-certificates.crt',
  '/etc/pki/tls/certs/ca-bundle.crt',
  '/etc/ssl/cert.pem',
];

/** Context per NODE_EXTRA_CA_CERTS value: parsing a few hundred CAs per run would cost each run. */
const contexts = new Map<string, SecureContext>();

function readable(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

/**
 * The CAs a certificate is checked against: Node's own, the system's bundle and
 * NODE_EXTRA_CA_CERTS (what Node's own clients trust, plus the distribution's store).
 */
export function trustContext(extraFile = process.env.NODE_EXTRA_CA_CERTS ?? ''): SecureContext {
  const known = contexts.get(extraFile);
  if (known) return known;
  const ca = [...rootCertificates];
  const system = SYSTEM_BUNDLES.map(readable).find((text) => text !== null);
  if (system) ca.push(system);
  const extra = extraFile === '' ? null : readable(extraFile);
  if (extra) ca.push(extra);
  const context = createSecureContext({ ca });
  contexts.set(extraFile, context);
  return context;
}

/** OpenSSL's verification codes as the words a person reads. */
const VERIFY_ERRORS: Readonly<Record<string, string>> = {
  CERT_HAS_EXPIRED: 'the certificate has expired',
  CERT_NOT_YET_VALID: 'the certificate is not yet valid',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'self-signed certificate',
  SELF_SIGNED_CERT_IN_CHAIN: 'self-signed certificate in the chain',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'unknown issuer',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'unknown issuer',
  UNABLE_TO_GET_ISSUER_CERT: 'unknown issuer',
  CERT_REVOKED: 'the certificate is revoked',
  CERT_UNTRUSTED: 'the certificate is not trusted for this purpose',
};

/** A distinguished name on one line, as `openssl x509 -nameopt oneline` would show it. */
function oneLine(dn: string): string {
  return dn.split('\n').filter(Boolean).join(', ');
}

/** The certificate as an observation carries it, or null when the peer sent none. */
function certOf(peer: PeerCertificate): Observation['cert'] | null {
  if (!peer.raw) return null;
  let x509: X509Certificate;
  try {
    x509 = new X509Certificate(peer.raw);
  } catch {
    // Handshakes with such a certificate fail first; this only keeps a socket event from throwing.
    return null;
  }
  return {
    notAfter: new Date(x509.validTo),
    fingerprint256: x509.fingerprint256,
    issuer: oneLine(x509.issuer),
    subject: oneLine(x509.subject),
  };
}

/** The `tls` check type: a handshake, and what the certificate says (trust, name, expiry). */
export const tlsProbe: Probe = async (check, options) => {
  const target = splitHostPort(check.target, 443);
  if (typeof target === 'string') return failed(`tls target ${target}`);
  const name = check.tls?.hostname ?? target.host;
  const resolved = await Promise.race([
    resolveGuarded(target.host, options.guard),
    aborted(options.signal),
  ]);
  if (resolved === undefined) return failed(timedOut(check.timeout_s));
  if (typeof resolved === 'string') return failed(resolved);

  const started = performance.now();
  return new Promise<Observation>((resolve) => {
    const socket = connect({
      host: resolved.address,
      port: target.port,
      // RFC 6066: SNI carries names only.
      ...(isIP(name) === 0 ? { servername: name } : {}),
      secureContext: trustContext(),
      // Trust and name are judged below, so the certificate is read even when they fail.
      rejectUnauthorized: false,
      checkServerIdentity: () => undefined,
    });
    const finish = (observation: Observation) => {
      options.signal.removeEventListener('abort', onAbort);
      socket.destroy();
      resolve(observation);
    };
    const onAbort = () =>
      finish(failed(timedOut(check.timeout_s), performance.now() - started, resolved.address));
    if (options.signal.aborted) return onAbort();
    options.signal.addEventListener('abort', onAbort, { once: true });
    socket.on('error', (error) =>
      finish(failed(`tls: ${describeError(error)}`, performance.now() - started, resolved.address)),
    );
    socket.on('secureConnect', () => {
      const responseTimeMs = performance.now() - started;
      const peer = socket.getPeerCertificate(true);
      const cert = certOf(peer);
      const observation: Observation = { connected: true, responseTimeMs, ip: resolved.address };
      if (!cert)
        return finish({ ...observation, error: 'tls: the server sent no readable certificate' });
      observation.cert = cert;
      observation.certificateExpirationMs = cert.notAfter.getTime() - options.now().getTime();
      const error = verify(socket.authorized, socket.authorizationError, name, peer);
      finish(error ? { ...observation, error } : observation);
    });
  });
};

/** Why the certificate is not good for `name`, or null: the chain first, then the name. */
function verify(
  authorized: boolean,
  reason: unknown,
  name: string,
  peer: PeerCertificate,
): string | null {
  if (!authorized) {
    const code =
      reason instanceof Error
        ? ((reason as NodeJS.ErrnoException).code ?? reason.message)
        : String(reason);
    return `certificate not trusted: ${VERIFY_ERRORS[code] ?? code.toLowerCase().replaceAll('_', ' ')}`;
  }
  return checkServerIdentity(name, peer) ? `certificate is not valid for ${name}` : null;
}
