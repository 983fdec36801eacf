import type { Static } from '../../shared/typebox.js';
import { safeText } from '../../shared/wire/free-text.js';
import { INTERFACES_MAX, type NetView as NetViewSchema } from '../../shared/wire/machine-now.js';

export type NetView = Static<typeof NetViewSchema>;

/** One interface's byte counters since it came up. */
export interface NetCounters {
  name: string;
  rx: number;
  tx: number;
}

/** Thrown when /proc/net/dev cannot be read as counters; its message is the reason shown. */
export class NetParseError extends Error {}

/**
 * /proc/net/dev: two header lines, then `  eth0: RX-bytes packets errs drop fifo frame
 * compressed multicast TX-bytes …` (no space after the colon once the numbers are wide).
 */
export function parseNetDev(text: string): NetCounters[] {
  const lines = text.split('\n');
  if (!/\|\s*bytes/.test(lines[1] ?? '')) throw new NetParseError('/proc/net/dev has no header');
  const out: NetCounters[] = [];
  for (const line of lines.slice(2)) {
    if (line.trim() === '') continue;
    const colon = line.indexOf(':');
    if (colon < 0) throw new NetParseError('/proc/net/dev has a line without an interface');
    const fields = line
      .slice(colon + 1)
      .trim()
      .split(/\s+/)
      .map(Number);
    const rx = fields[0];
    const tx = fields[8];
    if (rx === undefined || tx === undefined || !Number.isFinite(rx) || !Number.isFinite(tx))
      throw new NetParseError('/proc/net/dev has a line without byte counters');
    out.push({ name: line.slice(0, colon).trim(), rx, tx });
  }
  return out;
}

/** Loopback is the machine talking to itself: not network traffic. */
const isLoopback = (name: string) => name === 'lo';

/**
 * The network from successive reads of the counters: the machine's rates (every interface but
 * loopback) and each interface's. A rate needs two reads; an interface whose counter went back
 * (reset, wrapped, the interface re-created) has a null rate for that read, never a negative one,
 * and adds nothing to the machine's.
 */
export class NetMeter {
  private previous: { atMs: number; byName: Map<string, NetCounters> } | null = null;

  sample(counters: readonly NetCounters[], atMs: number): NetView {
    const prev = this.previous;
    const seconds = prev === null ? 0 : (atMs - prev.atMs) / 1000;
    this.previous = { atMs, byName: new Map(counters.map((c) => [c.name, c])) };
    const rate = (now: number, before: number | undefined) =>
      before === undefined || seconds <= 0 || now < before ? null : (now - before) / seconds;
    const shown = counters.filter((c) => !isLoopback(c.name));
    let rxTotal: number | null = prev === null || seconds <= 0 ? null : 0;
    let txTotal = rxTotal;
    const interfaces = shown.map((c) => {
      const before = prev?.byName.get(c.name);
      const rx = rate(c.rx, before?.rx);
      const tx = rate(c.tx, before?.tx);
      if (rxTotal !== null && rx !== null) rxTotal += rx;
      if (txTotal !== null && tx !== null) txTotal += tx;
      return {
        name: safeText(c.name).slice(0, 64),
        rx_bps: roundRate(rx),
        tx_bps: roundRate(tx),
        rx_bytes: bytes(c.rx),
        tx_bytes: bytes(c.tx),
      };
    });
    return {
      rx_bps: roundRate(rxTotal),
      tx_bps: roundRate(txTotal),
      interfaces: busiest(interfaces),
    };
  }
}

/** At most INTERFACES_MAX: those that moved the most bytes, in the kernel's order. */
function busiest<T extends { rx_bytes: number; tx_bytes: number }>(all: T[]): T[] {
  if (all.length <= INTERFACES_MAX) return all;
  const kept = new Set(
    [...all]
      .map((x, i) => ({ i, total: x.rx_bytes + x.tx_bytes }))
      .sort((a, b) => b.total - a.total || a.i - b.i)
      .slice(0, INTERFACES_MAX)
      .map((x) => x.i),
  );
  return all.filter((_, i) => kept.has(i));
}

function roundRate(x: number | null): number | null {
  return x === null || !Number.isFinite(x) ? null : Math.max(0, Math.round(x));
}

function bytes(x: number): number {
  return Math.max(0, Math.min(Number.MAX_SAFE_INTEGER, Math.round(x)));
}
