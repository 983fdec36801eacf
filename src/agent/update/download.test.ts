import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGzip, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BoardFiles, FILE_MAX_BYTES } from './download.js';

const FILE = Buffer.from('the agent binary, more or less '.repeat(20_000));
const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** Zeros past the size cap, gzipped (~1000:1): what a hostile board could send. */
async function gzipBomb(): Promise<Buffer> {
  const gzip = createGzip({ level: 9 });
  const out: Buffer[] = [];
  gzip.on('data', (c: Buffer) => out.push(c));
  const zeros = Buffer.alloc(1024 * 1024);
  for (let i = 0; i < FILE_MAX_BYTES / zeros.length + 10; i++) {
    if (!gzip.write(zeros)) await once(gzip, 'drain');
  }
  gzip.end();
  await once(gzip, 'end');
  return Buffer.concat(out);
}

/** The agent's download from a board: a local node:http server answering as told. */
describe('BoardFiles.download', () => {
  let server: Server;
  let board = '';
  let asked: IncomingHttpHeaders = {};
  let answer: { body: Buffer; gzip: boolean } = { body: FILE, gzip: false };

  beforeAll(async () => {
    server = createServer((req, res) => {
      asked = req.headers;
      const headers: Record<string, string | number> = { 'content-length': answer.body.length };
      if (answer.gzip) headers['content-encoding'] = 'gzip';
      res.writeHead(200, headers).end(answer.body);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    board = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => server.close());

  async function download() {
    const files = new BoardFiles({ board, ca: null, key: null });
    const chunks: Buffer[] = [];
    let written = 0;
    try {
      const got = await files.download('panoptes-agent-linux-x64', async (chunk) => {
        written += chunk.length;
        if (chunks.length < 100) chunks.push(chunk);
      });
      return { got, saved: Buffer.concat(chunks), written };
    } catch (error) {
      return { error: error as Error, written };
    } finally {
      await files.close();
    }
  }

  it('asks for gzip and unzips a gzip answer as it writes: the SHA-256 is of the file itself', async () => {
    answer = { body: gzipSync(FILE, { level: 6 }), gzip: true };
    const r = await download();
    expect(asked['accept-encoding']).toBe('gzip');
    expect(r.saved?.equals(FILE)).toBe(true);
    expect(r.got).toEqual({ sha256: sha(FILE), size: FILE.length });
  });

  it('takes the file as it is from a board that sends no gzip', async () => {
    answer = { body: FILE, gzip: false };
    const r = await download();
    expect(r.saved?.equals(FILE)).toBe(true);
    expect(r.got).toEqual({ sha256: sha(FILE), size: FILE.length });
  });

  it('stops a gzip bomb at the size cap of what it unzips', async () => {
    answer = { body: await gzipBomb(), gzip: true };
    expect(answer.body.length).toBeLessThan(FILE_MAX_BYTES / 100);
    const r = await download();
    expect(r.error?.message).toBe("the board's panoptes-agent-linux-x64 is larger than 250 MB");
    expect(r.written).toBeLessThanOrEqual(FILE_MAX_BYTES);
  }, 30_000);

  it('refuses a gzip answer that is cut short', async () => {
    const zipped = gzipSync(FILE);
    answer = { body: zipped.subarray(0, zipped.length - 100), gzip: true };
    const r = await download();
    expect(r.error?.message).toMatch(/unexpected end of file/);
  });
});
