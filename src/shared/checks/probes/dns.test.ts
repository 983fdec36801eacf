import { createSocket, type Socket } from 'node:dgram';
import { createServer, type Server } from 'node:net';
import type { Answer, Packet } from 'dns-packet';
import dnsPacket from 'dns-packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../../../test/helpers/tmp.js';
import type { HandedCheck, RunType } from '../wire.js';
import { dnsProbe, questionName, systemResolver } from './dns.js';

const NOERROR = 0;
const SERVFAIL = 2;
const NXDOMAIN = 3;

/** What the test resolver answers for a name: rcode, answers, and whether UDP says "truncated". */
interface Zone {
  rcode: number;
  answers: Answer[];
  truncateUdp?: boolean;
  silent?: boolean;
  /** Sends a forged answer (wrong id, then wrong question) before the real one. */
  forgeFirst?: boolean;
}

const ZONES: Record<string, Zone> = {
  'ok.test': {
    rcode: NOERROR,
    answers: [{ type: 'A', name: 'ok.test', ttl: 60, data: '192.0.2.7' }],
  },
  'www.test': {
    rcode: NOERROR,
    answers: [
      { type: 'CNAME', name: 'www.test', ttl: 60, data: 'ok.test' },
      { type: 'A', name: 'ok.test', ttl: 60, data: '192.0.2.7' },
      { type: 'A', name: 'ok.test', ttl: 60, data: '192.0.2.8' },
    ],
  },
  'mail.test': {
    rcode: NOERROR,
    answers: [
      {
        type: 'MX',
        name: 'mail.test',
        ttl: 60,
        data: { preference: 10, exchange: 'mx1.mail.test' },
      },
    ],
  },
  'missing.test': { rcode: NXDOMAIN, answers: [] },
  'broken.test': { rcode: SERVFAIL, answers: [] },
  'big.test': {
    rcode: NOERROR,
    truncateUdp: true,
    answers: [{ type: 'A', name: 'big.test', ttl: 60, data: '192.0.2.99' }],
  },
  'silent.test': { rcode: NOERROR, answers: [], silent: true },
  'forged.test': {
    rcode: NOERROR,
    forgeFirst: true,
    answers: [{ type: 'A', name: 'forged.test', ttl: 60, data: '192.0.2.5' }],
  },
};

/** A small authoritative server on 127.0.0.1 (UDP and TCP on one port) that logs what it was asked. */
class TestResolver {
  readonly udpQueries: string[] = [];
  readonly tcpQueries: string[] = [];
  private udp!: Socket;
  private tcp!: Server;
  port = 0;

  async start(host = '127.0.0.1'): Promise<void> {
    this.udp = createSocket(host.includes(':') ? 'udp6' : 'udp4');
    this.udp.on('message', (message, from) => {
      const query = dnsPacket.decode(message);
      const name = query.questions?.[0]?.name ?? '';
      this.udpQueries.push(name);
      const zone = ZONES[name];
      if (!zone || zone.silent) return;
      const send = (packet: Packet) =>
        this.udp.send(dnsPacket.encode(packet), from.port, from.address);
      if (zone.forgeFirst) {
        const forged = { type: 'A' as const, name, ttl: 60, data: '203.0.113.66' };
        send({
          ...this.answer(query, zone),
          id: ((query.id ?? 0) + 1) % 65_536,
          answers: [forged],
        });
        send({
          ...this.answer(query, zone),
          questions: [{ type: 'A', name: 'other.test' }],
          answers: [forged],
        });
      }
      send(this.answer(query, zone, zone.truncateUdp));
    });
    await new Promise<void>((resolve) => this.udp.bind(0, host, resolve));
    this.port = this.udp.address().port;
    this.tcp = createServer((socket) => {
      socket.once('data', (data) => {
        const query = dnsPacket.streamDecode(data);
        const name = query.questions?.[0]?.name ?? '';
        this.tcpQueries.push(name);
        const zone = ZONES[name];
        if (zone) socket.end(dnsPacket.streamEncode(this.answer(query, zone)));
      });
    });
    await new Promise<void>((resolve) => this.tcp.listen(this.port, host, resolve));
  }

  private answer(query: Packet, zone: Zone, truncated = false): Packet {
    const flags = zone.rcode | (truncated ? dnsPacket.TRUNCATED_RESPONSE : 0);
    return {
      type: 'response' as const,
      id: query.id ?? 0,
      flags,
      questions: query.questions ?? [],
      answers: truncated ? [] : zone.answers,
    };
  }

  async stop(): Promise<void> {
    this.udp.close();
    await new Promise((resolve) => this.tcp.close(resolve));
  }
}

function dnsCheck(target: string, resolver: string, record = 'A'): HandedCheck {
  return handed({
    name: 'dns',
    type: 'dns',
    target,
    interval_s: 60,
    timeout_s: 2,
    conditions: [],
    dns: { record, resolver },
  });
}

function options(timeoutMs = 2000, guard?: (address: string) => string | null) {
  return {
    signal: AbortSignal.timeout(timeoutMs),
    now: () => new Date(),
    ...(guard ? { guard } : {}),
  };
}

describe('dns probe against a resolver on 127.0.0.1', () => {
  const server = new TestResolver();
  let resolver = '';
  beforeAll(async () => {
    await server.start();
    resolver = `127.0.0.1:${server.port}`;
  });
  afterAll(() => server.stop());

  it('answers an A record: NOERROR, the address in body and ip', async () => {
    const seen = await dnsProbe(dnsCheck('ok.test', resolver), options());
    expect(seen).toMatchObject({
      connected: true,
      dnsRcode: 'NOERROR',
      body: '192.0.2.7',
      ip: '192.0.2.7',
    });
    expect(seen.error).toBeUndefined();
    expect(seen.responseTimeMs).toBeGreaterThan(0);
    expect(seen.responseTimeMs).toBeLessThan(2000);
  });

  it('gives every answer one per line, and ip is the first address (a trailing dot is the same name)', async () => {
    const seen = await dnsProbe(dnsCheck('www.test.', resolver), options());
    expect(seen.body).toBe('ok.test\n192.0.2.7\n192.0.2.8');
    expect(seen.ip).toBe('192.0.2.7');
  });

  it('shows an MX answer as "preference exchange"', async () => {
    const seen = await dnsProbe(dnsCheck('mail.test', resolver, 'MX'), options());
    expect(seen).toMatchObject({ connected: true, body: '10 mx1.mail.test' });
    expect(seen.ip).toBeUndefined();
  });

  it('reports NXDOMAIN and SERVFAIL as the rcode of an answer that came back', async () => {
    const missing = await dnsProbe(dnsCheck('missing.test', resolver), options());
    expect(missing).toMatchObject({ connected: true, dnsRcode: 'NXDOMAIN', body: '' });
    const broken = await dnsProbe(dnsCheck('broken.test', resolver), options());
    expect(broken).toMatchObject({ connected: true, dnsRcode: 'SERVFAIL', body: '' });
  });

  it('asks again over TCP when the UDP answer is truncated', async () => {
    const seen = await dnsProbe(dnsCheck('big.test', resolver), options());
    expect(seen).toMatchObject({ connected: true, dnsRcode: 'NOERROR', ip: '192.0.2.99' });
    expect(server.tcpQueries).toContain('big.test');
  });

  it('ignores answers with another id or another question', async () => {
    const seen = await dnsProbe(dnsCheck('forged.test', resolver), options());
    expect(seen).toMatchObject({ connected: true, body: '192.0.2.5', ip: '192.0.2.5' });
  });

  it('times out on a resolver that stays silent', async () => {
    const started = Date.now();
    const seen = await dnsProbe(dnsCheck('silent.test', resolver), options(300));
    expect(seen).toMatchObject({ connected: false, error: 'timed out after 2s' });
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('says the port is closed when nothing listens there', async () => {
    const closed = new TestResolver();
    await closed.start();
    await closed.stop();
    const seen = await dnsProbe(dnsCheck('ok.test', `127.0.0.1:${closed.port}`), options());
    expect(seen).toMatchObject({ connected: false, error: 'dns: connection refused' });
  });

  it('asks the guard for the resolver address and does not send when it refuses', async () => {
    const asked: string[] = [];
    const before = server.udpQueries.length;
    const guard = (address: string) => {
      asked.push(address);
      return 'refused: private address';
    };
    const seen = await dnsProbe(dnsCheck('ok.test', resolver), options(2000, guard));
    expect(seen).toMatchObject({ connected: false, error: 'refused: private address' });
    expect(asked).toEqual(['127.0.0.1']);
    expect(server.udpQueries.length).toBe(before);
  });

  it('resolves the resolver name (localhost) before asking the guard', async () => {
    const asked: string[] = [];
    const guard = (address: string) => {
      asked.push(address);
      return null;
    };
    const seen = await dnsProbe(
      dnsCheck('ok.test', `localhost:${server.port}`),
      options(2000, guard),
    );
    expect(asked).toHaveLength(1);
    expect(['127.0.0.1', '::1']).toContain(asked[0]);
    if (asked[0] === '127.0.0.1') expect(seen.ip).toBe('192.0.2.7');
  });

  it('refuses an unknown record type without asking', async () => {
    const seen = await dnsProbe(dnsCheck('ok.test', resolver, 'BOGUS'), options());
    expect(seen).toMatchObject({ connected: false, error: 'dns: unknown record type BOGUS' });
  });
});

describe('dns probe against a resolver on ::1', () => {
  const server = new TestResolver();
  let started = false;
  beforeAll(async () => {
    started = await server.start('::1').then(
      () => true,
      () => false,
    );
  });
  afterAll(() => (started ? server.stop() : undefined));

  it('asks a bracketed IPv6 resolver with its port', async (context) => {
    if (!started) context.skip('this machine has no ::1');
    const seen = await dnsProbe(dnsCheck('ok.test', `[::1]:${server.port}`), options());
    expect(seen).toMatchObject({ connected: true, dnsRcode: 'NOERROR', ip: '192.0.2.7' });
    expect(server.udpQueries).toEqual(['ok.test']);
  });
});

describe('dns question name', () => {
  it('turns an address into its reverse name for PTR, and refuses what is not a name', () => {
    expect(questionName('192.0.2.7', 'PTR')).toBe('7.2.0.192.in-addr.arpa');
    expect(questionName('2001:db8::1', 'PTR')).toBe(
      '1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa',
    );
    expect(questionName('192.0.2.7', 'A')).toBe('192.0.2.7');
    expect(questionName('Example.org.', 'A')).toBe('Example.org');
    expect(questionName('a..b', 'A')).toBeNull();
    expect(questionName(`${'x'.repeat(64)}.org`, 'A')).toBeNull();
  });

  it('fails a check whose target is not a name without asking', async () => {
    const seen = await dnsProbe(dnsCheck('a..b', '127.0.0.1:9'), options());
    expect(seen).toMatchObject({ connected: false, error: "dns: not a name: 'a..b'" });
  });
});

describe('dns resolver chosen when none is named', () => {
  it('is the first nameserver of resolv.conf, IPv6 in brackets, else 127.0.0.1', () => {
    const dir = tempDir();
    try {
      const v4 = dir.write(
        'v4.conf',
        '# comment\nsearch example\nnameserver 10.1.2.3\nnameserver 10.9.9.9\n',
      );
      const v6 = dir.write('v6.conf', 'nameserver 2001:db8::53\n');
      const none = dir.write('none.conf', 'search example\n');
      expect(systemResolver(v4)).toBe('10.1.2.3');
      expect(systemResolver(v6)).toBe('[2001:db8::53]');
      expect(systemResolver(none)).toBe('127.0.0.1');
      expect(systemResolver(`${dir.path}/absent.conf`)).toBe('127.0.0.1');
    } finally {
      dir.cleanup();
    }
  });
});

/** A check as handed to a runner (HandedCheck's `type` reads as never under the test tsconfig). */
function handed(check: Omit<HandedCheck, 'type'> & { type: RunType }): HandedCheck {
  return check as HandedCheck;
}
