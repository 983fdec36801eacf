import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { MadeLink, PersonView } from '../auth/local-people.js';
import type { BoardSettings } from '../config/config.js';
import { UsersError, type UsersPort } from './users-port.js';

/** The board of these settings on this machine (its own loopback address), or null: not local. */
export function localAddress(settings: BoardSettings): { url: string; host: string } | null {
  const { host, port } = settings;
  const loopback = ['127.0.0.1', '::1', 'localhost', '0.0.0.0', '::', ''];
  if (!loopback.includes(host)) return null;
  const scheme = settings.tls === null ? 'http' : 'https';
  const ip = host === '::1' || host === '::' ? '[::1]' : '127.0.0.1';
  return { url: `${scheme}://${ip}:${port}`, host: `localhost:${port}` };
}

interface Answer {
  status: number;
  body: unknown;
}

/** One call to the board's API with the board token (loopback only; its own certificate). */
function call(
  address: { url: string; host: string },
  token: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<Answer> {
  const url = new URL(path, address.url);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const data = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = send(
      url,
      {
        method,
        // The board writes the link with the Host it was asked at: localhost is a passkey's rpID.
        headers: {
          host: address.host,
          authorization: `Bearer ${token}`,
          ...(data === undefined ? {} : { 'content-type': 'application/json' }),
        },
        // Loopback to the board of this config: its certificate may be its own.
        rejectUnauthorized: false,
        timeout: 10_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = null;
          try {
            parsed = JSON.parse(text);
          } catch {
            parsed = text;
          }
          resolve({ status: res.statusCode ?? 0, body: parsed });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error('the board did not answer in 10 s')));
    req.on('error', reject);
    req.end(data);
  });
}

function detail(answer: Answer): string {
  const d = (answer.body as { detail?: unknown } | null)?.detail;
  if (typeof d === 'string') return d;
  if (Array.isArray(d)) return d.map((i) => (i as { msg?: string }).msg ?? '').join('; ');
  return `the board answered ${answer.status}`;
}

/**
 * `users` through a running board on this machine: how a SQLite board is changed while it
 * holds its file (one writer), journaled by the board itself. Null when no board answers there.
 */
export async function remoteUsers(settings: BoardSettings): Promise<UsersPort | null> {
  const address = localAddress(settings);
  if (address === null) return null;
  const token = settings.boardToken;
  try {
    await call(address, token, 'GET', '/api/people');
  } catch {
    return null;
  }
  const expect = async (status: number, answer: Promise<Answer>) => {
    const a = await answer;
    if (a.status !== status) throw new UsersError(detail(a));
    return a.body;
  };
  const path = (name: string) => `/api/people/${encodeURIComponent(name)}`;
  return {
    list: async () =>
      ((await expect(200, call(address, token, 'GET', '/api/people'))) as { people: PersonView[] })
        .people,
    add: async (name, bindings) =>
      (await expect(
        201,
        call(address, token, 'POST', '/api/people', { name, bindings }),
      )) as MadeLink,
    remove: async (name) => {
      await expect(200, call(address, token, 'DELETE', path(name)));
    },
    link: async (name) =>
      (await expect(200, call(address, token, 'POST', `${path(name)}/link`))) as MadeLink,
    close: async () => undefined,
  };
}
