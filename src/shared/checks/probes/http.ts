import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { PeerCertificate, TLSSocket } from 'node:tls';
import type { Observation, Probe, ProbeOptions } from '../observation.js';
import type { HttpOptions } from '../wire.js';
import { fixedLookup, guardedAddresses, networkError, ProbeError } from './resolve-target.js';

/** The most of a body read for [BODY]; past it the body is cut, not an error. */
export const BODY_MAX = 1024 * 1024;
/** The most redirects followed (each hop is resolved and guarded like the first). */
export const REDIRECTS_MAX = 10;

const DEFAULTS: HttpOptions = {
  method: 'GET',
  headers: {},
  body: '',
  follow_redirects: true,
  verify_tls: true,
};

/** What one request saw. */
interface Answer {
  status: number;
  location: string | undefined;
  body: string;
  ip: string | undefined;
  cert: Observation['cert'];
}

function issuerOf(cert: PeerCertificate): string {
  const issuer = cert.issuer as unknown as Record<string, string | string[]> | undefined;
  if (issuer === undefined) return '';
  return Object.entries(issuer)
    .map(([k, v]) => `${k}=${Array.isArray(v) ? v.join('+') : v}`)
    .join(', ');
}

function certOf(res: IncomingMessage): Observation['cert'] {
  const socket = res.socket as TLSSocket | null;
  if (socket === null || typeof socket.getPeerCertificate !== 'function') return undefined;
  const cert = socket.getPeerCertificate();
  if (cert === null || cert.valid_to === undefined) return undefined;
  const subject = cert.subject as unknown as Record<string, string> | undefined;
  return {
    notAfter: new Date(cert.valid_to),
    fingerprint256: cert.fingerprint256,
    issuer: issuerOf(cert),
    subject: subject?.CN ?? '',
  };
}

function reasonOf(signal: AbortSignal): string {
  return signal.reason instanceof Error ? signal.reason.message : 'timed out';
}

/** One request, its body read up to BODY_MAX. */
async function once(
  url: URL,
  method: string,
  body: string,
  http: HttpOptions,
  options: ProbeOptions,
): Promise<Answer> {
  const checked = await guardedAddresses(url.hostname, options.guard);
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<Answer>((resolve, reject) => {
    const req = request(url, {
      method,
      headers: { 'user-agent': 'Panoptes-check', ...http.headers },
      agent: false,
      signal: options.signal,
      rejectUnauthorized: http.verify_tls,
      ...(checked === null ? {} : { lookup: fixedLookup(checked) }),
    });
    req.on('error', (error) => {
      if (options.signal.aborted) reject(new ProbeError(reasonOf(options.signal)));
      else reject(new ProbeError(networkError(error, url.host)));
    });
    req.once('response', (res) => {
      // Taken now: the socket goes once the body is read.
      const ip = res.socket?.remoteAddress;
      const cert = certOf(res);
      const chunks: Buffer[] = [];
      let size = 0;
      let settled = false;
      const finish = () => {
        if (settled) return;
        settled = true;
        const location = res.headers.location;
        resolve({
          status: res.statusCode ?? 0,
          location,
          body: Buffer.concat(chunks).toString('utf8'),
          ip,
          cert,
        });
        res.destroy();
      };
      res.on('data', (chunk: Buffer) => {
        if (settled) return;
        const room = BODY_MAX - size;
        chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
        size += Math.min(chunk.length, room);
        if (size >= BODY_MAX) finish();
      });
      res.once('end', finish);
      const fail = (error: unknown) => {
        if (settled) return;
        settled = true;
        reject(
          new ProbeError(
            options.signal.aborted ? reasonOf(options.signal) : networkError(error, url.host),
          ),
        );
      };
      res.on('error', fail);
      // A server that closes mid-body: 'close' without 'end'.
      res.once('close', () => fail(new Error('connection closed before the body ended')));
    });
    req.end(body === '' ? undefined : body);
  });
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** The `http` check type: status, body, [IP] and (over TLS) the certificate. */
export const httpProbe: Probe = async (check, options) => {
  const started = performance.now();
  const elapsed = () => performance.now() - started;
  const http = check.http ?? DEFAULTS;
  let connected = false;
  try {
    let url: URL;
    try {
      url = new URL(check.target);
    } catch {
      throw new ProbeError(`not a URL: ${check.target}`);
    }
    let method = http.method;
    let body = http.body;
    for (let hop = 0; ; hop++) {
      if (url.protocol !== 'http:' && url.protocol !== 'https:')
        throw new ProbeError(`not an http(s) URL: ${url.protocol}`);
      const answer = await once(url, method, body, http, options);
      connected = true;
      const redirect = http.follow_redirects && REDIRECT_STATUSES.has(answer.status);
      if (redirect && answer.location !== undefined) {
        if (hop >= REDIRECTS_MAX) throw new ProbeError(`more than ${REDIRECTS_MAX} redirects`);
        url = new URL(answer.location, url);
        // As browsers do: 303 (and 301/302 after a POST) turn into a GET without a body.
        if (answer.status === 303 || (answer.status < 303 && method === 'POST')) {
          method = 'GET';
          body = '';
        }
        continue;
      }
      const o: Observation = {
        connected: true,
        responseTimeMs: elapsed(),
        status: answer.status,
        body: answer.body,
      };
      if (answer.ip !== undefined) o.ip = answer.ip;
      if (answer.cert !== undefined) {
        o.cert = answer.cert;
        o.certificateExpirationMs = answer.cert.notAfter.getTime() - options.now().getTime();
      }
      return o;
    }
  } catch (error) {
    return { connected, responseTimeMs: elapsed(), error: networkError(error, check.target) };
  }
};
