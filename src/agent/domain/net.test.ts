import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../../harness/root.js';
import { NetMeter, NetParseError, parseNetDev } from './net.js';

/** /proc/net/dev recorded on a real VM (test/fixtures/net, see its README). */
const recorded = (name: string) => readFileSync(join(ROOT, 'test/fixtures/net', name), 'utf8');

const HEADER =
  'Inter-|   Receive                                                |  Transmit\n' +
  ' face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed\n';
const line = (name: string, rx: number, tx: number) =>
  `${name.padStart(6)}: ${rx} 0 0 0 0 0 0 0 ${tx} 0 0 0 0 0 0 0\n`;

describe('parseNetDev', () => {
  it('reads every interface with its received and sent bytes', () => {
    expect(parseNetDev(recorded('vm-t0.txt'))).toEqual([
      { name: 'lo', rx: 998001668600, tx: 998001668600 },
      { name: 'ifb0', rx: 0, tx: 0 },
      { name: 'ifb1', rx: 0, tx: 0 },
      { name: 'eth0', rx: 1358343997, tx: 5953998 },
    ]);
  });

  it('takes a counter run up against the colon, and refuses what is not the file', () => {
    expect(parseNetDev(`${HEADER}enp3s0:123456789012 5 0 0 0 0 0 0 42 1 0 0 0 0 0 0\n`)).toEqual([
      { name: 'enp3s0', rx: 123456789012, tx: 42 },
    ]);
    expect(() => parseNetDev('')).toThrow(NetParseError);
    expect(() => parseNetDev(`${HEADER}eth0 1 2 3\n`)).toThrow(/without an interface/);
    expect(() => parseNetDev(`${HEADER}eth0: 1 2 3\n`)).toThrow(/without byte counters/);
  });
});

describe('NetMeter', () => {
  it('no rates until two reads; then bytes a second, loopback left out', () => {
    const meter = new NetMeter();
    const first = meter.sample(parseNetDev(recorded('vm-t0.txt')), 10_000);
    expect(first).toEqual({
      rx_bps: null,
      tx_bps: null,
      interfaces: [
        { name: 'ifb0', rx_bps: null, tx_bps: null, rx_bytes: 0, tx_bytes: 0 },
        { name: 'ifb1', rx_bps: null, tx_bps: null, rx_bytes: 0, tx_bytes: 0 },
        { name: 'eth0', rx_bps: null, tx_bps: null, rx_bytes: 1358343997, tx_bytes: 5953998 },
      ],
    });
    // Two seconds later: eth0 received 242158 bytes and sent 1906 (lo's own traffic is not counted).
    const second = meter.sample(parseNetDev(recorded('vm-t1.txt')), 12_000);
    expect(second.rx_bps).toBe(121079);
    expect(second.tx_bps).toBe(953);
    expect(second.interfaces.map((i) => [i.name, i.rx_bps, i.tx_bps])).toEqual([
      ['ifb0', 0, 0],
      ['ifb1', 0, 0],
      ['eth0', 121079, 953],
    ]);
  });

  it('a counter that went back (reset, wrap) has no rate, never a negative one', () => {
    const meter = new NetMeter();
    meter.sample(parseNetDev(HEADER + line('eth0', 5000, 9000) + line('eth1', 100, 100)), 0);
    const after = meter.sample(
      parseNetDev(HEADER + line('eth0', 200, 9500) + line('eth1', 1100, 600)),
      1000,
    );
    expect(after.interfaces).toEqual([
      { name: 'eth0', rx_bps: null, tx_bps: 500, rx_bytes: 200, tx_bytes: 9500 },
      { name: 'eth1', rx_bps: 1000, tx_bps: 500, rx_bytes: 1100, tx_bytes: 600 },
    ]);
    // The machine's rate is what the readable counters moved.
    expect([after.rx_bps, after.tx_bps]).toEqual([1000, 1000]);
    // An interface that appeared since the last read has no rate yet either.
    const third = meter.sample(
      parseNetDev(HEADER + line('eth0', 1200, 9500) + line('eth1', 1100, 600) + line('wg0', 7, 7)),
      2000,
    );
    expect(third.interfaces.map((i) => i.rx_bps)).toEqual([1000, 0, null]);
  });

  it('at most 32 interfaces: those that moved the most bytes, in the kernel order', () => {
    // A container host: eth0 and 40 veth pairs, veth0 the quietest.
    let text = HEADER + line('lo', 9e12, 9e12) + line('eth0', 5e9, 4e9);
    for (let i = 0; i < 40; i += 1) text += line(`veth${i}`, 1000 * (i + 1), 10);
    const view = new NetMeter().sample(parseNetDev(text), 0);
    expect(view.interfaces).toHaveLength(32);
    const names = view.interfaces.map((i) => i.name);
    expect(names[0]).toBe('eth0');
    expect(names[1]).toBe('veth9');
    expect(names.at(-1)).toBe('veth39');
    expect(names).not.toContain('lo');
    expect(names).not.toContain('veth8');
  });

  it('the machine rate counts every interface, also those beyond the 32 shown', () => {
    let before = HEADER;
    let after = HEADER;
    for (let i = 0; i < 40; i += 1) {
      before += line(`veth${i}`, 0, 0);
      after += line(`veth${i}`, 10, 0);
    }
    const meter = new NetMeter();
    meter.sample(parseNetDev(before), 0);
    expect(meter.sample(parseNetDev(after), 1000).rx_bps).toBe(400);
  });
});
