import { randomInt } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { readFileSync } from 'node:fs';
import { connect, isIP } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { Answer, DecodedPacket, RecordType } from 'dns-packet';
import dnsPacket from 'dns-packet';
import type { Observation, Probe } from '../observation.js';
import {
  aborted,
  describeError,
  failed,
  resolveGuarded,
  splitHostPort,
  timedOut,
} from './probe-address.js';

/** A resolver named nowhere: the system's first, as the C library would ask. */
export function systemResolver(resolvConf = '/etc/resolv.conf'): string {
  try {
    for (const line of readFileSync(resolvConf, 'utf8').split('\n')) {
      const match = /^\s*nameserver\s+(\S+)/.exec(line);
      // A link-local address with its zone (fe80::1%eth0) keeps the zone; dgram accepts it.
      if (match?.[1]) return match[1].includes(':') ? `[${match[1]}]` : match[1];
    }
  } catch {
    // No resolv.conf: the local resolver is the last guess.
  }
  return '127.0.0.1';
}

/** One answer's data as the text a condition compares (`[BODY]`). */
export function answerText(answer: Answer): string {
  switch (answer.type) {
    case 'MX':
      return `${answer.data.preference} ${answer.data.exchange}`;
    case 'SRV':
      return `${answer.data.priority ?? 0} ${answer.data.weight ?? 0} ${answer.data.port} ${answer.data.target}`;
    case 'SOA': {
      const d = answer.data;
      return `${d.mname} ${d.rname} ${d.serial} ${d.refresh} ${d.retry} ${d.expire} ${d.minimum}`;
    }
    case 'CAA':
      return `${answer.data.flags ?? 0} ${answer.data.tag} "${answer.data.value}"`;
    case 'TXT': {
      const parts = Array.isArray(answer.data) ? answer.data : [answer.data];
      return parts.map((p) => (typeof p === 'string' ? p : p.toString('utf8'))).join('');
    }
    case 'OPT':
      return '';
    default: {
      const data: unknown = (answer as { data?: unknown }).data;
      if (typeof data === 'string') return data;
      if (Buffer.isBuffer(data)) return data.toString('hex');
      return JSON.stringify(data) ?? '';
    }
  }
}

interface Query {
  id: number;
  name: string;
  type: RecordType;
}

/** The answer belongs to our query: same id, a response, the same question. */
function answers(query: Query, packet: DecodedPacket): boolean {
  const question = packet.questions?.[0];
  return (
    packet.id === query.id &&
    packet.type === 'response' &&
    question !== undefined &&
    question.type === query.type &&
    question.name.toLowerCase() === query.name.toLowerCase()
  );
}

function decode(buffer: Buffer): DecodedPacket | null {
  try {
    return dnsPacket.decode(buffer);
  } catch {
    return null;
  }
}

/** Asks over UDP; resolves with the first well-formed answer to this query (others are ignored). */
function askUdp(
  query: Buffer,
  q: Query,
  address: string,
  family: 4 | 6,
  port: number,
  signal: AbortSignal,
) {
  return new Promise<DecodedPacket | Error>((resolve) => {
    const socket = createSocket(family === 6 ? 'udp6' : 'udp4');
    const done = (result: DecodedPacket | Error) => {
      signal.removeEventListener('abort', onAbort);
      socket.close();
      resolve(result);
    };
    const onAbort = () => done(new Error('aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    socket.on('error', (error) => done(error));
    socket.on('message', (message) => {
      const packet = decode(message);
      if (packet && answers(q, packet)) done(packet);
    });
    // A connected socket takes datagrams from the resolver alone and reports "port unreachable".
    socket.connect(port, address, () => socket.send(query));
  });
}

/** Asks over TCP (RFC 7766), for an answer too large for a datagram. */
function askTcp(query: Buffer, q: Query, address: string, port: number, signal: AbortSignal) {
  return new Promise<DecodedPacket | Error>((resolve) => {
    const socket = connect({ host: address, port });
    let received = Buffer.alloc(0);
    const done = (result: DecodedPacket | Error) => {
      signal.removeEventListener('abort', onAbort);
      socket.destroy();
      resolve(result);
    };
    const onAbort = () => done(new Error('aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    socket.on('error', (error) => done(error));
    socket.on('connect', () => socket.write(query));
    socket.on('data', (chunk) => {
      received = Buffer.concat([received, chunk]);
      if (received.length < 2 || received.length < 2 + received.readUInt16BE(0)) return;
      const packet = decode(received.subarray(2, 2 + received.readUInt16BE(0)));
      done(
        packet && answers(q, packet)
          ? packet
          : new Error('the answer over TCP is not for this question'),
      );
    });
    socket.on('end', () =>
      done(new Error('the resolver closed the TCP connection without an answer')),
    );
  });
}

/** The name asked, or null: a PTR check may name the address itself (192.0.2.7 → 7.2.0.192.in-addr.arpa). */
export function questionName(target: string, record: string): string | null {
  const name = target.trim().replace(/\.$/, '');
  if (record === 'PTR' && isIP(name) === 4)
    return `${name.split('.').reverse().join('.')}.in-addr.arpa`;
  if (record === 'PTR' && isIP(name) === 6 && !name.includes('.')) {
    const [head = '', tail] = name.split('::');
    const groups = (part: string) => (part === '' ? [] : part.split(':'));
    const missing = 8 - groups(head).length - groups(tail ?? '').length;
    const all = [
      ...groups(head),
      ...Array<string>(tail === undefined ? 0 : missing).fill('0'),
      ...groups(tail ?? ''),
    ];
    const nibbles = all
      .map((g) => g.padStart(4, '0'))
      .join('')
      .split('');
    return `${nibbles.reverse().join('.')}.ip6.arpa`;
  }
  // RFC 1035: labels of 1–63 octets, 253 characters in all (the root alone is ".").
  const labels = name.split('.');
  const fits =
    name.length <= 253 && labels.every((l) => l.length >= 1 && Buffer.byteLength(l) <= 63);
  return name === '' || !fits ? null : name;
}

/** The `dns` check type: asks the resolver for the target's record, as `dig` would. */
export const dnsProbe: Probe = async (check, options) => {
  const record = (check.dns?.record ?? 'A').toUpperCase();
  if (!isKnownType(record)) return failed(`dns: unknown record type ${record}`);
  const name = questionName(check.target, record);
  if (name === null) return failed(`dns: not a name: '${check.target}'`);
  const resolverText = check.dns?.resolver ?? systemResolver();
  const resolver = splitHostPort(resolverText, 53);
  if (typeof resolver === 'string') return failed(`dns resolver ${resolver}`);
  const resolved = await Promise.race([
    resolveGuarded(resolver.host, options.guard),
    aborted(options.signal),
  ]);
  if (resolved === undefined) return failed(timedOut(check.timeout_s));
  if (typeof resolved === 'string') return failed(resolved);

  const q: Query = { id: randomInt(0, 65_536), name, type: record as RecordType };
  const packet = {
    type: 'query' as const,
    id: q.id,
    flags: dnsPacket.RECURSION_DESIRED,
    questions: [{ type: q.type, name }],
  };
  const started = performance.now();
  let answer = await askUdp(
    dnsPacket.encode(packet),
    q,
    resolved.address,
    resolved.family,
    resolver.port,
    options.signal,
  );
  if (!(answer instanceof Error) && answer.flag_tc) {
    answer = await askTcp(
      dnsPacket.streamEncode(packet),
      q,
      resolved.address,
      resolver.port,
      options.signal,
    );
  }
  const responseTimeMs = performance.now() - started;
  if (options.signal.aborted)
    return failed(timedOut(check.timeout_s), responseTimeMs, resolved.address);
  if (answer instanceof Error)
    return failed(`dns: ${describeError(answer)}`, responseTimeMs, resolved.address);
  return observe(answer, responseTimeMs);
};

function isKnownType(record: string): boolean {
  return /^[A-Z0-9]{1,10}$/.test(record) && record !== 'OPT' && toType(record) !== 0;
}

function toType(record: string): number {
  // dns-packet encodes an unknown name as type 0, which no resolver answers.
  try {
    return dnsPacket
      .encode({ questions: [{ type: record as RecordType, name: 'a' }] })
      .readUInt16BE(15);
  } catch {
    return 0;
  }
}

function observe(packet: DecodedPacket, responseTimeMs: number): Observation {
  const rcode = (packet as DecodedPacket & { rcode?: string }).rcode ?? 'NOERROR';
  const records = (packet.answers ?? []).filter((a) => a.type !== 'OPT');
  const ip = records.find((a) => a.type === 'A' || a.type === 'AAAA');
  return {
    connected: true,
    responseTimeMs,
    dnsRcode: rcode,
    body: records.map(answerText).join('\n'),
    ...(ip && typeof ip.data === 'string' ? { ip: ip.data } : {}),
  };
}
