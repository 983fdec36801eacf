import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';

/** The board's poller client, as built (dist/board/polling/). */
interface Poller {
  overview(
    target: { url: string; key: string | null },
    timeoutMs: number,
  ): Promise<{ ok: true } | { ok: false; error: string }>;
  close(): Promise<void>;
}
const polling = new URL('../board/polling/', import.meta.url);
const { pollerHeapMb, ThreadedClient } = (await import(
  new URL('threaded-client.js', polling).href
)) as {
  pollerHeapMb(machines: number): number;
  ThreadedClient: new (
    options: { client: { connectTimeoutMs: number }; heapMb: number },
    relays: unknown,
    onError: (error: unknown) => void,
  ) => Poller;
};
const { createAgentClient } = (await import(new URL('agent-client.js', polling).href)) as {
  createAgentClient(options: { connectTimeoutMs: number }): unknown;
};

/**
 * Whether the board's poller thread holds a fleet of N answering machines within its heap
 * ceiling: `node dist/bench/poller-heap.js N [HEAP_MB]` (HEAP_MB: the ceiling to try; default
 * pollerHeapMb(N), what the board starts its poller with). The board's own ThreadedClient polls
 * N agents, each at an address of its own on the loopback (127.x.y.z, one server process
 * listening on all of them, so each poll keeps a connection of its own as in a sweep), 2,048
 * at a time, four sweeps; it prints each sweep's answers and failures. A poller that runs out
 * of memory shows as polls failed with "the poller restarted". Needs N + a few hundred open
 * files in each of its two processes.
 */
const ANSWER = Buffer.from(JSON.stringify({ name: 'm', pad: 'x'.repeat(1100) }));

if (process.argv[2] === '--serve') {
  const server = createServer({ keepAliveTimeout: 120_000 }, (_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(ANSWER);
  });
  server.listen(0, '0.0.0.0', () => {
    const address = server.address();
    process.stdout.write(`${typeof address === 'object' && address ? address.port : 0}\n`);
  });
} else {
  const n = Number(process.argv[2] ?? 19_000);
  const heapMb = Number(process.argv[3] ?? pollerHeapMb(n));
  const server: ChildProcess = spawn(process.execPath, [process.argv[1] as string, '--serve'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [chunk] = (await once(server.stdout as NodeJS.ReadableStream, 'data')) as [Buffer];
  const port = Number(chunk.toString().trim());
  const urls = Array.from(
    { length: n },
    (_, i) => `http://127.${1 + (i >> 16)}.${(i >> 8) & 255}.${i & 255 || 1}:${port}`,
  );
  let oom = 0;
  const client = new ThreadedClient(
    { client: { connectTimeoutMs: 3000 }, heapMb },
    createAgentClient({ connectTimeoutMs: 3000 }),
    (error) => {
      oom += 1;
      process.stdout.write(`poller: ${error instanceof Error ? error.message : error}\n`);
    },
  );
  process.stdout.write(`${n} machines, poller old space ${heapMb} MiB\n`);
  for (let sweep = 0; sweep < 4; sweep += 1) {
    const failures = new Map<string, number>();
    let ok = 0;
    let next = 0;
    const began = performance.now();
    await Promise.all(
      Array.from({ length: 2048 }, async () => {
        while (next < n) {
          const url = urls[next] as string;
          next += 1;
          const o = await client.overview({ url, key: 'k' }, 3000);
          if (o.ok) ok += 1;
          else failures.set(o.error, (failures.get(o.error) ?? 0) + 1);
        }
      }),
    );
    const ms = Math.round(performance.now() - began);
    process.stdout.write(
      `sweep ${sweep}: ${ok} of ${n} answered in ${ms} ms; failed: ${JSON.stringify(Object.fromEntries(failures))}\n`,
    );
  }
  await client.close();
  server.kill();
  process.exit(oom > 0 ? 1 : 0);
}
