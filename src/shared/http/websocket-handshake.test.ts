import { describe, expect, it } from 'vitest';
import { handshakeProblem, isUpgrade } from './websocket-handshake.js';

const good = {
  connection: 'Upgrade',
  upgrade: 'websocket',
  'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
  'sec-websocket-version': '13',
};

describe('WebSocket handshake checks', () => {
  it('knows an upgrade request', () => {
    expect(isUpgrade(good)).toBe(true);
    expect(isUpgrade({ connection: 'keep-alive, Upgrade', upgrade: 'websocket' })).toBe(true);
    expect(isUpgrade({ upgrade: 'websocket' })).toBe(false);
    expect(isUpgrade({ connection: 'upgrade' })).toBe(false);
  });

  it('accepts what ws accepts', () => {
    expect(handshakeProblem('GET', good)).toBeNull();
    expect(handshakeProblem('GET', { ...good, 'sec-websocket-protocol': 'a, b' })).toBeNull();
  });

  it('refuses what ws refuses, with a status and a FastAPI-style detail', () => {
    expect(handshakeProblem('POST', good)?.statusCode).toBe(405);
    for (const headers of [
      { ...good, upgrade: 'h2c' },
      { ...good, 'sec-websocket-key': 'x' },
      { ...good, 'sec-websocket-version': '12' },
      { ...good, 'sec-websocket-protocol': 'a,,b' },
      { ...good, 'sec-websocket-protocol': 'a, a' },
    ]) {
      const problem = handshakeProblem('GET', headers);
      expect(problem?.statusCode).toBe(400);
      expect(problem?.message).toMatch(/^Bad WebSocket handshake: /);
    }
  });
});
