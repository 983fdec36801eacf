import { BlockList, isIPv4, isIPv6 } from 'node:net';
import type { AddressGuard } from '../../shared/checks/observation.js';

/** The detail of a board-run check refused for where its target resolves. */
export const PRIVATE_REFUSAL = 'refused: private address';

/**
 * What a board-run check may not reach without `allow_private: true`: the board's own host,
 * the networks behind it and the cloud's metadata service (an SSRF from whoever writes the
 * config, or whoever controls the target's DNS).
 */
const BLOCKED = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this network", 0.0.0.0 included
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, 169.254.169.254 (metadata) included
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
] as const)
  BLOCKED.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128],
  ['fc00::', 7], // unique local, fd00:ec2::254 (metadata) included
  ['fe80::', 10],
] as const)
  BLOCKED.addSubnet(net, prefix, 'ipv6');

/** The guard of board-run checks (runCheck asks it of every address a target resolves to). */
export const privateAddressGuard: AddressGuard = (address) =>
  isPrivateAddress(address) ? PRIVATE_REFUSAL : null;

/** Whether an address is one a board-run check may not reach (anything unreadable is). */
export function isPrivateAddress(raw: string): boolean {
  const address = raw.replace(/%.*$/, '');
  if (isIPv4(address)) return BLOCKED.check(address, 'ipv4');
  if (!isIPv6(address)) return true;
  if (BLOCKED.check(address, 'ipv6')) return true;
  const groups = expand(address);
  if (groups === null) return true;
  // IPv4 inside IPv6: mapped (::ffff:a.b.c.d), compatible (::a.b.c.d) and NAT64 (64:ff9b::/96).
  const head = groups.slice(0, 5).every((g) => g === 0);
  const mapped = head && groups[5] === 0xffff;
  const compatible = head && groups[5] === 0;
  const nat64 =
    groups[0] === 0x64 && groups[1] === 0xff9b && groups.slice(2, 6).every((g) => g === 0);
  if (!mapped && !compatible && !nat64) return false;
  const hi = groups[6] as number;
  const lo = groups[7] as number;
  const v4 = `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  return BLOCKED.check(v4, 'ipv4');
}

/** The eight 16-bit groups of an IPv6 address (a dotted IPv4 tail included); null: unreadable. */
function expand(address: string): number[] | null {
  let text = address.toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted !== null) {
    const parts = (dotted[1] as string).split('.').map(Number);
    if (parts.some((p) => p > 255)) return null;
    const [a, b, c, d] = parts as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const read = (s: string) => (s === '' ? [] : s.split(':').map((g) => Number.parseInt(g, 16)));
  const left = read(halves[0] as string);
  const right = halves.length === 2 ? read(halves[1] as string) : [];
  const missing = 8 - left.length - right.length;
  if (halves.length === 1 ? missing !== 0 : missing < 0) return null;
  const groups = [...left, ...new Array<number>(missing).fill(0), ...right];
  return groups.some((g) => Number.isNaN(g)) ? null : groups;
}
