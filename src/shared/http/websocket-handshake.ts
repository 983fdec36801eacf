import type { IncomingHttpHeaders } from 'node:http';
import { errors, type HttpError } from './errors.js';

const KEY = /^[+/0-9A-Za-z]{22}==$/;
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** Whether a request asks to switch protocols (Node hands these to the 'upgrade' listeners). */
export function isUpgrade(headers: IncomingHttpHeaders): boolean {
  return headers.upgrade !== undefined && /(^|,)\s*upgrade\s*(,|$)/i.test(headers.connection ?? '');
}

/**
 * What is wrong with a WebSocket handshake, checked the way the `ws` library checks it, so that
 * the refusal is a FastAPI-shaped error instead of `ws`'s plain-text one; null when it is fine.
 */
export function handshakeProblem(method: string, headers: IncomingHttpHeaders): HttpError | null {
  if (method !== 'GET') return errors.methodNotAllowed(['GET']);
  const bad = (what: string) => errors.badRequest(`Bad WebSocket handshake: ${what}`);
  if (headers.upgrade?.toLowerCase() !== 'websocket') return bad('Upgrade must be websocket');
  const key = headers['sec-websocket-key'];
  if (key === undefined || !KEY.test(key)) return bad('missing or invalid Sec-WebSocket-Key');
  const version = Number(headers['sec-websocket-version']);
  if (version !== 13 && version !== 8) return bad('Sec-WebSocket-Version must be 13');
  const protocol = headers['sec-websocket-protocol'];
  if (protocol !== undefined) {
    const names = protocol.split(',').map((p) => p.trim());
    if (!names.every((p) => TOKEN.test(p)) || new Set(names).size !== names.length) {
      return bad('invalid Sec-WebSocket-Protocol');
    }
  }
  return null;
}
