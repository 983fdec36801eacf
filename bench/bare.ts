import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

/**
 * The baselines: a bare node:http server that does the least the board's job needs, started
 * as a separate process like the board.
 *   --bytes FILE   answers every GET with FILE's bytes (the board view, as the board sends it)
 *   --reports      answers every POST by reading and JSON.parse-ing the body, then {"ok":true,"actions":[]}
 *   --both FILE    GET as --bytes FILE, POST as --reports, in one process (one event loop, as the board)
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

function reportsHandler(req: IncomingMessage, res: ServerResponse): void {
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
    res.writeHead(status, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
    });
    res.end(body);
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
        : null;
if (handler === null) {
  process.stderr.write('usage: bare.js --bytes FILE | --reports | --both FILE\n');
  process.exit(2);
}
const server = createServer(handler);
server.keepAliveTimeout = 5000;
// The board's listen backlog (src/board/run.ts LISTEN_BACKLOG), so both queue alike.
server.listen({ port: 0, host: '127.0.0.1', backlog: 4096 }, () => {
  const address = server.address();
  if (address !== null && typeof address === 'object') {
    process.stdout.write(`bare server listening at http://127.0.0.1:${address.port}\n`);
  }
});
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
