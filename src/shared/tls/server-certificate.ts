import { Server as TlsServer } from 'node:tls';
import type { TlsPair } from './pem-files.js';

/**
 * Gives a listening HTTPS server a new certificate and key: new connections use them, open
 * ones keep theirs. Returns false when the server does not speak TLS.
 */
export function setServerCertificate(server: unknown, pair: TlsPair): boolean {
  if (!(server instanceof TlsServer)) return false;
  server.setSecureContext({ cert: pair.cert, key: pair.key });
  return true;
}
