import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgentClient } from '../dist/board/polling/agent-client.js';
import { pollerHeapMb, pollerOf, ThreadedClient } from '../dist/board/polling/threaded-client.js';

/** A client with its own pollers (and relays), time-outs of 1 s for connecting. */
function startClient(
  options: {
    threads?: number;
    onError?: (error: unknown) => void;
    lazy?: boolean;
    heapMb?: number;
  } = {},
): ThreadedClient {
  return new ThreadedClient(
    {
      client: { connectTimeoutMs: 1000 },
      ...(options.heapMb === undefined ? {} : { heapMb: options.heapMb }),
    },
    createAgentClient({ connectTimeoutMs: 1000 }),
    options.onError,
    options.threads,
    options.lazy,
  );
}

/** Poller `index`'s resource limits as its thread runs with them. */
function limitsOf(client: ThreadedClient, index: number): Record<string, number> | undefined {
  const { workers } = client as unknown as {
    workers: ({ resourceLimits?: Record<string, number> } | null)[];
  };
  return workers[index]?.resourceLimits;
}

/** Kills poller `index` as an out-of-memory or a crash would. */
async function killPoller(client: ThreadedClient, index: number): Promise<void> {
  const { workers } = client as unknown as { workers: { terminate(): Promise<number> }[] };
  await workers[index]?.terminate();
}

/** The poller thread (built code: the worker runs dist/board/polling/poll-worker.js). */
describe('ThreadedClient: polls in the poller thread', () => {
  let server: Server;
  let url = '';
  let hang = false;
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (hang) return; // never answers
      if (req.url === '/bad-utf8/api/overview') {
        // A name with a byte that is not UTF-8: the board must not pass it on as it came.
        const bytes = Buffer.concat([
          Buffer.from('{"name":"w'),
          Buffer.from([0xff]),
          Buffer.from('b"}'),
        ]);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(bytes);
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          name: 'web1',
          cpu_use: 0.5,
          load: [2, 1, 1],
          memory: { total: 100, free: 40, used: 60 },
          disks: [{ path: '/', total: 10, free: 1, used: 9 }],
          sessions: [{ session: 's1', why: 'attention', text: 'hi', at: '2026-01-01T00:00:00Z' }],
          seen_key: req.headers.authorization === 'Bearer k-0123456789abcdef',
          // The agent's labels: one that breaks the rule is left out (a poll is not refused).
          labels: { site: 'fra', gpu: '', Bad: 'x' },
        }),
      );
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no address');
    url = `http://127.0.0.1:${address.port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  });

  it('lazy: starts a poller thread at its first poll, not before (a board of announced machines only starts none)', async () => {
    const eager = startClient({ threads: 2 });
    expect(eager.started).toBe(2);
    await eager.close();
    const client = startClient({ threads: 2, lazy: true });
    try {
      expect(client.started).toBe(0);
      const o = await client.overview({ url, key: null }, 2000);
      expect(o.ok).toBe(true);
      expect(client.started).toBe(1);
    } finally {
      await client.close();
    }
    expect(client.started).toBe(1);
  });

  it('sends back the overview text, its metrics and sessions, measured there', async () => {
    const client = startClient();
    try {
      const o = await client.overview({ url, key: 'k-0123456789abcdef' }, 2000);
      if (!o.ok || o.prepared === undefined) throw new Error(`poll failed: ${JSON.stringify(o)}`);
      // The bytes of the overview, moved across threads in a buffer of their own.
      const { json } = o.prepared;
      if (typeof json === 'string') throw new Error('the poller sent text, not bytes');
      expect(json.byteLength).toBe(json.buffer.byteLength);
      expect(JSON.parse(Buffer.from(json).toString('utf8'))).toMatchObject({
        name: 'web1',
        seen_key: true,
      });
      expect(o.prepared.metrics).toMatchObject({
        cpu: 0.5,
        mem: 0.6,
        load: 2,
        disk: 0.9,
        bells: 1,
      });
      expect(o.prepared.sessions).toHaveLength(1);
      expect({ ...o.prepared.labels }).toEqual({ gpu: '', site: 'fra' });
      expect(o.overview).toBeUndefined();
    } finally {
      await client.close();
    }
  });

  it('an overview that is not valid UTF-8 is kept as the text it decodes to, in UTF-8', async () => {
    const client = startClient();
    try {
      const o = await client.overview({ url: `${url}/bad-utf8`, key: null }, 2000);
      if (!o.ok || o.prepared === undefined) throw new Error(`poll failed: ${JSON.stringify(o)}`);
      const json = Buffer.from(o.prepared.json);
      expect(json.equals(Buffer.from('{"name":"w\uFFFDb"}'))).toBe(true);
    } finally {
      await client.close();
    }
  });

  it('with two pollers, each agent always goes to the same one, and every poll is answered', async () => {
    const client = startClient({ threads: 2 });
    try {
      const urls = Array.from({ length: 8 }, (_, i) => `${url}/m${i}`);
      const chosen = urls.map((u) => pollerOf(u, 2));
      expect(new Set(chosen).size).toBe(2);
      expect(urls.map((u) => pollerOf(u, 2))).toEqual(chosen);
      const answers = await Promise.all(
        urls.map((u) => client.overview({ url: u, key: null }, 2000)),
      );
      expect(answers.every((o) => o.ok)).toBe(true);
      // A poller that dies fails only its own polls.
      hang = true;
      const first = urls.find((u) => pollerOf(u, 2) === 0) ?? '';
      const second = urls.find((u) => pollerOf(u, 2) === 1) ?? '';
      const lost = client.overview({ url: first, key: null }, 30_000);
      const kept = client.overview({ url: second, key: null }, 1500);
      await new Promise((r) => setTimeout(r, 200));
      await killPoller(client, 0);
      expect(await lost).toEqual({ ok: false, error: 'the poller restarted' });
      expect(await kept).toMatchObject({ ok: false, error: 'no answer within 1.5 s' });
    } finally {
      hang = false;
      await client.close();
    }
  });

  it('a poller that dies fails the polls it had, and the next poll works again', async () => {
    const errors: unknown[] = [];
    const client = startClient({ onError: (e) => errors.push(e) });
    try {
      hang = true;
      const waiting = client.overview({ url, key: null }, 30_000);
      await new Promise((r) => setTimeout(r, 200));
      await killPoller(client, 0);
      expect(await waiting).toEqual({ ok: false, error: 'the poller restarted' });
      hang = false;
      const again = await client.overview({ url, key: null }, 2000);
      expect(again.ok).toBe(true);
    } finally {
      hang = false;
      await client.close();
    }
  });

  it("a poller's heap ceiling grows with the machines it polls (a fixed 128 MiB ran out of memory at 19,000)", async () => {
    expect(pollerHeapMb(0)).toBe(128);
    expect(pollerHeapMb(10_000)).toBe(128);
    expect(pollerHeapMb(10_240)).toBe(128);
    expect(pollerHeapMb(10_241)).toBe(129);
    expect(pollerHeapMb(19_000)).toBe(238);
    expect(pollerHeapMb(50_000)).toBe(625);
    const roomy = startClient({ heapMb: pollerHeapMb(19_000) });
    const plain = startClient();
    try {
      expect(roomy.heapMb).toBe(238);
      expect(limitsOf(roomy, 0)?.maxOldGenerationSizeMb).toBe(238);
      expect(plain.heapMb).toBe(128);
      expect(limitsOf(plain, 0)?.maxOldGenerationSizeMb).toBe(128);
      expect((await roomy.overview({ url, key: null }, 2000)).ok).toBe(true);
    } finally {
      await roomy.close();
      await plain.close();
    }
  });
});
