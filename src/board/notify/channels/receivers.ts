import { createServer, type IncomingMessage, type Server } from 'node:http';

/** One request a receiver took. */
export interface Received {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: string;
}

/**
 * A local HTTP receiver on 127.0.0.1 for channel tests: records each request and answers with
 * what `answer` says (status and body), 200 `{"ok":true}` by default.
 */
export class Receiver {
  readonly requests: Received[] = [];
  answer: (r: Received) => { status: number; body?: string } = () => ({
    status: 200,
    body: '{"ok":true}',
  });
  private server: Server | null = null;
  port = 0;

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const url = new URL(req.url ?? '/', 'http://x');
        const r: Received = {
          method: req.method ?? '',
          path: url.pathname,
          query: url.searchParams,
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        };
        this.requests.push(r);
        const a = this.answer(r);
        if (a.status === 0) return; // never answers
        res.writeHead(a.status, { 'content-type': 'application/json' }).end(a.body ?? '');
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    const address = this.server.address();
    this.port = typeof address === 'object' && address !== null ? address.port : 0;
    return this;
  }

  get host(): string {
    return `127.0.0.1:${this.port}`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}
