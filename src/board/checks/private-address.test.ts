import { describe, expect, it } from 'vitest';
import { isPrivateAddress, PRIVATE_REFUSAL, privateAddressGuard } from './private-address.js';

describe('the private address guard of board-run checks', () => {
  it('refuses loopback, private, CGNAT, link-local, unspecified and metadata addresses', () => {
    for (const a of [
      '127.0.0.1',
      '127.255.0.9',
      '10.1.2.3',
      '172.16.0.1',
      '172.31.255.254',
      '192.168.1.1',
      '100.64.0.1',
      '100.127.255.255',
      '169.254.169.254',
      '169.254.1.1',
      '0.0.0.0',
      '0.1.2.3',
      '::1',
      '::',
      'fc00::1',
      'fd00:ec2::254',
      'fe80::1',
      'fe80::1%eth0',
      'febf::1',
    ])
      expect(isPrivateAddress(a), a).toBe(true);
  });

  it('refuses them in IPv4-mapped, IPv4-compatible and NAT64 forms too', () => {
    for (const a of [
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::FFFF:169.254.169.254',
      '::ffff:a9fe:a9fe',
      '0:0:0:0:0:ffff:10.0.0.1',
      '::10.0.0.1',
      '64:ff9b::192.168.0.1',
      '::ffff:0.0.0.0',
    ])
      expect(isPrivateAddress(a), a).toBe(true);
  });

  it('lets public addresses through, and refuses what it cannot read', () => {
    for (const a of [
      '8.8.8.8',
      '1.1.1.1',
      '172.32.0.1',
      '100.128.0.1',
      '169.253.0.1',
      '2001:4860:4860::8888',
      '::ffff:8.8.8.8',
      '64:ff9b::808:808',
    ])
      expect(isPrivateAddress(a), a).toBe(false);
    expect(isPrivateAddress('localhost')).toBe(true);
    expect(isPrivateAddress('')).toBe(true);
    expect(privateAddressGuard('127.0.0.1')).toBe(PRIVATE_REFUSAL);
    expect(privateAddressGuard('8.8.8.8')).toBeNull();
  });
});
