// Raw bytes on a socket: hostile heads sent as they are, and the answers split back out.
import { connect } from 'node:net';
import fc from 'fast-check';
import type { FuzzAnswer } from './fuzz-requests.js';

/**
 * Sends raw bytes on a fresh connection and collects what comes back until the server closes
 * or `waitMs` passes (then the client closes).
 */
export function rawExchange(
  port: number,
  data: string | Uint8Array,
  waitMs = 1500,
): Promise<{ text: string; closedByServer: boolean }> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let done = false;
    const finish = (closedByServer: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ text: Buffer.concat(chunks).toString('latin1'), closedByServer });
    };
    const timer = setTimeout(() => finish(false), waitMs);
    socket.on('connect', () => socket.write(data));
    socket.on('data', (c: Buffer) => {
      chunks.push(c);
      // One whole answer (not a switch of protocols) is all a case needs: no need to wait.
      const text = Buffer.concat(chunks).toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (end < 0 || text.startsWith('HTTP/1.1 101')) return;
      const length = /\r\ncontent-length:\s*(\d+)/i.exec(text.slice(0, end));
      if (length?.[1] !== undefined && text.length >= end + 4 + Number(length[1])) finish(false);
    });
    socket.on('end', () => finish(true));
    socket.on('close', () => finish(true));
    socket.on('error', () => finish(true));
  });
}

/** Splits raw HTTP/1.1 answers (no chunked bodies expected) into status, headers and body. */
export function parseRawAnswers(text: string): FuzzAnswer[] {
  const answers: FuzzAnswer[] = [];
  let rest = text;
  while (rest.startsWith('HTTP/1.')) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) break;
    const lines = rest.slice(0, end).split('\r\n');
    const status = Number(lines[0]?.split(' ')[1]);
    const headers: Record<string, string> = {};
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = Number(headers['content-length'] ?? '0');
    answers.push({ status, headers, text: rest.slice(end + 4, end + 4 + length) });
    rest = rest.slice(end + 4 + length);
  }
  return answers;
}

/** WebSocket handshakes, good and bad, on the given paths (both programs take these). */
export function upgradeHeads(
  paths: readonly string[],
  upgrades: readonly string[],
  protocols: readonly (string | null)[],
): fc.Arbitrary<string> {
  return fc
    .record({
      path: fc.constantFrom(...paths),
      method: fc.constantFrom('GET', 'GET', 'POST'),
      upgrade: fc.constantFrom(...upgrades),
      key: fc.constantFrom('dGhlIHNhbXBsZSBub25jZQ==', 'x', ''),
      version: fc.constantFrom('13', '8', '12', 'x'),
      protocol: fc.constantFrom(...protocols),
    })
    .map(
      (h) =>
        `${h.method} ${h.path} HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: ${h.upgrade}\r\n` +
        `Sec-WebSocket-Key: ${h.key}\r\nSec-WebSocket-Version: ${h.version}\r\n` +
        `${h.protocol === null ? '' : `Sec-WebSocket-Protocol: ${h.protocol}\r\n`}\r\n`,
    );
}
