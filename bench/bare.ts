import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';

/**
 * The baselines: a bare node:http server that does the least the board's job needs, started
 * as a separate process like the board.
 *   --bytes FILE   answers every GET with FILE's bytes (the board view, as the board sends it)
 *   --reports      answers every POST by reading and JSON.parse-ing the body, then {"ok":true,"actions":[]}
 *   --reports-batched
 *                  the same, each answer written once the event loop has taken every request
 *                  that came in this turn (setImmediate), together, at most 16 at a time: as
 *                  the board writes its answers to reports (src/board/http/answer-batch.ts)
 *   --both FILE    GET as --bytes FILE, POST as --reports, in one process (one event loop, as the board)
 * followed, optionally, by
 *   --tls CERT KEY --keep-alive S   node:https with that certificate, idle connections kept S seconds
 *                  (the board's `keep_alive`); without it node:http with its default of 5 s
 */
const args = process.argv.slice(2);
const mode = args[0];
const REPORT_ANSWER = '{"ok":true,"actions":[]}';

function bytesHandler(file: string): (req: IncomingMessage, res: ServerResponse) => void {
  const bytes = readFileSync(file);
  const etag = `"bare-${bytes.length}"`;
  return (_req, res) => {
    res.writeHead(200, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': bytes.length,
      etag,
      'cache-control': 'no-cache',
    });
    res.end(bytes);
  };
}

/** Answers waiting for the end of this turn of the event loop (--reports-batched). */
let batch: (() => void)[] = [];
let scheduled = false;
/** At most this many wait together, as the board's (BATCH_MAX in answer-batch.ts). */
const BATCH_MAX = 16;
function writeBatch(): void {
  const due = batch;
  batch = [];
  for (const write of due) write();
}
function writeLater(write: () => void): void {
  const waiting = batch.push(write);
  if (waiting === 1 && !scheduled) {
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      writeBatch();
    });
  }
  if (waiting >= BATCH_MAX) writeBatch();
}

function reportsHandler(req: IncomingMessage, res: ServerResponse, batched = false): void {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    let status = 200;
    let body = REPORT_ANSWER;
    try {
      JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      status = 422;
      body = '{"detail":"json_invalid"}';
    }
    const write = (): void => {
      res.writeHead(status, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(body),
      });
      res.end(body);
    };
    if (!batched) write();
    else writeLater(write);
  });
}

function bothHandler(file: string): (req: IncomingMessage, res: ServerResponse) => void {
  const get = bytesHandler(file);
  return (req, res) => (req.method === 'POST' ? reportsHandler(req, res) : get(req, res));
}

const handler =
  mode === '--bytes' && args[1] !== undefined
    ? bytesHandler(args[1])
    : mode === '--both' && args[1] !== undefined
      ? bothHandler(args[1])
      : mode === '--reports'
        ? reportsHandler
        : mode === '--reports-batched'
          ? (req: IncomingMessage, res: ServerResponse) => reportsHandler(req, res, true)
          : null;
if (handler === null) {
  process.stderr.write(
    'usage: bare.js --bytes FILE | --reports | --reports-batched | --both FILE\n',
  );
  process.exit(2);
}
const tlsAt = args.indexOf('--tls');
const keepAt = args.indexOf('--keep-alive');
const server =
  tlsAt >= 0
    ? createHttpsServer(
        { cert: readFileSync(args[tlsAt + 1] ?? ''), key: readFileSync(args[tlsAt + 2] ?? '') },
        handler,
      )
    : createServer(handler);
server.keepAliveTimeout = keepAt >= 0 ? Number(args[keepAt + 1]) * 1000 : 5000;
// The board's listen backlog (src/board/run.ts LISTEN_BACKLOG), so both queue alike.
server.listen({ port: 0, host: '127.0.0.1', backlog: 4096 }, () => {
  const address = server.address();
  if (address !== null && typeof address === 'object') {
    const scheme = tlsAt >= 0 ? 'https' : 'http';
    process.stdout.write(`bare server listening at ${scheme}://127.0.0.1:${address.port}\n`);
  }
});
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
