import { describe, expect, it } from 'vitest';
import { clientAddress, proxyEntryProblem, TrustedProxies } from './client-address.js';

describe('clientAddress', () => {
  const proxies = new TrustedProxies(['10.0.0.0/8', '192.168.1.1', 'fd00::/8']);

  it('is the peer when no proxy is trusted or the peer is not one (the headers are ignored)', () => {
    const headers = { 'x-forwarded-for': '1.2.3.4', forwarded: 'for=5.6.7.8' };
    expect(clientAddress('127.0.0.1', headers, new TrustedProxies())).toBe('127.0.0.1');
    expect(clientAddress('203.0.113.9', headers, proxies)).toBe('203.0.113.9');
    expect(clientAddress('::ffff:203.0.113.9', headers, proxies)).toBe('203.0.113.9');
  });

  it('behind a trusted proxy, is the right-most forwarded address that is not a trusted proxy', () => {
    const xff = (v: string) => ({ 'x-forwarded-for': v });
    expect(clientAddress('10.1.2.3', xff('198.51.100.7'), proxies)).toBe('198.51.100.7');
    expect(clientAddress('::ffff:10.1.2.3', xff('6.6.6.6, 198.51.100.7, 10.9.9.9'), proxies)).toBe(
      '198.51.100.7',
    );
    expect(clientAddress('192.168.1.1', xff('[2001:db8::1]:443'), proxies)).toBe('2001:db8::1');
    expect(clientAddress('fd00::5', xff('203.0.113.1:5000'), proxies)).toBe('203.0.113.1');
    // Only trusted hops: the left-most of them; garbage: the nearest address known.
    expect(clientAddress('10.0.0.1', xff('10.0.0.2, 10.0.0.3'), proxies)).toBe('10.0.0.2');
    expect(clientAddress('10.0.0.1', xff('not-an-ip, 10.0.0.3'), proxies)).toBe('10.0.0.3');
    expect(clientAddress('10.0.0.1', {}, proxies)).toBe('10.0.0.1');
  });

  it('reads Forwarded: for= when there is no X-Forwarded-For', () => {
    const fwd = 'for=198.51.100.7;proto=https, for="[2001:db8:cafe::17]:4711";by=10.0.0.1';
    expect(clientAddress('10.0.0.1', { forwarded: fwd }, proxies)).toBe('2001:db8:cafe::17');
    expect(clientAddress('10.0.0.1', { forwarded: 'For=unknown' }, proxies)).toBe('10.0.0.1');
    expect(
      clientAddress(
        '10.0.0.1',
        { forwarded: 'for=1.1.1.1', 'x-forwarded-for': '2.2.2.2' },
        proxies,
      ),
    ).toBe('2.2.2.2');
  });

  it('can be swapped at run time', () => {
    const swappable = new TrustedProxies();
    const headers = { 'x-forwarded-for': '198.51.100.7' };
    expect(clientAddress('127.0.0.1', headers, swappable)).toBe('127.0.0.1');
    swappable.set(['127.0.0.1']);
    expect(clientAddress('127.0.0.1', headers, swappable)).toBe('198.51.100.7');
  });
});

describe('proxyEntryProblem', () => {
  it('takes addresses and CIDR ranges of both families, and nothing else', () => {
    for (const ok of [
      '10.0.0.1',
      '10.0.0.0/8',
      '::1',
      'fd00::/8',
      '0.0.0.0/0',
      '::ffff:10.0.0.1',
    ]) {
      expect(proxyEntryProblem(ok), ok).toBeNull();
    }
    for (const bad of [
      '10.0.0.0/33',
      'fd00::/129',
      'localhost',
      '10.0.0/8',
      '1.2.3.4/8/9',
      '',
      '10.0.0.1/x',
    ]) {
      expect(proxyEntryProblem(bad), bad).not.toBeNull();
    }
  });
});
