import { connect } from 'node:net';

/** An answer read off the wire: status, lower-cased headers, body text. */
export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Sends `request` byte for byte on a fresh connection (no URL normalisation, any method, any
 * target) and reads one answer: what `fetch` cannot do for `#` in a path or a method `FOO`.
 */
export function rawRequest(baseUrl: string, request: Buffer | string): Promise<RawAnswer> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    const chunks: Buffer[] = [];
    const finish = () => {
      const data = Buffer.concat(chunks);
      const end = data.indexOf('\r\n\r\n');
      if (end < 0) return false;
      const head = data.subarray(0, end).toString('latin1').split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of head.slice(1)) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      // An answer to HEAD announces a length but carries no body.
      const isHead = Buffer.from(request).subarray(0, 5).toString('latin1') === 'HEAD ';
      const length = isHead ? 0 : Number(headers['content-length'] ?? 'NaN');
      const body = data.subarray(end + 4);
      if (Number.isNaN(length) || body.length < length) return false;
      socket.destroy();
      resolve({
        status: Number(head[0]?.split(' ')[1]),
        headers,
        body: body.subarray(0, length).toString('utf8'),
      });
      return true;
    };
    socket.on('data', (chunk) => {
      chunks.push(chunk);
      finish();
    });
    socket.on('end', () => {
      if (!finish()) reject(new Error(`connection closed: ${Buffer.concat(chunks).toString()}`));
    });
    socket.on('error', reject);
    socket.write(request);
  });
}

/** A request's bytes: request line, the given headers and Content-Length, then the body. */
export function requestBytes(
  line: string,
  headers: Record<string, string>,
  body?: Buffer | string,
): Buffer {
  const payload = body === undefined ? Buffer.alloc(0) : Buffer.from(body);
  const lines = [line, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
  if (body !== undefined) lines.push(`Content-Length: ${payload.length}`);
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), payload]);
}
