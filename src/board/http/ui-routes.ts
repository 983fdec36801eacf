import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/**
 * The browser UI's security headers. The page is a client of /api like any other: it loads only
 * its own files, talks only to its own origin (CSP 'self' covers the same-origin ws: of
 * /api/live), runs no inline script or style, cannot be framed, and never sends a Referer, so a
 * `?token=` in the address cannot leak to a machine's page opened from the board. Trusted Types
 * guard every script URL: the one policy allowed, `panoptes-sw`, makes only /sw.js (the service
 * worker of "Notify this browser").
 */
export const UI_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self'",
    "font-src 'self'",
    "connect-src 'self'",
    "manifest-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    "require-trusted-types-for 'script'",
    'trusted-types panoptes-sw',
  ].join('; '),
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'permissions-policy': 'camera=(), microphone=(), geolocation=(), usb=(), serial=()',
};

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
};

/** Text files worth compressing once at start. */
const COMPRESSIBLE = /^(text\/|application\/(json|manifest)|image\/svg)/;
const MAX_FILES = 1000;
const SAFE_PATH = /^(\/[A-Za-z0-9_-][A-Za-z0-9._-]*)+$/;

interface UiFile {
  body: Buffer;
  gzip: Buffer | null;
  type: string;
  etag: string;
  cacheControl: string;
}

function listFiles(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (out.length >= MAX_FILES) break;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) listFiles(path, out);
    else if (entry.isFile()) out.push(path);
  }
  return out;
}

function loadFile(path: string, urlPath: string): UiFile {
  const body = readFileSync(path);
  const type = TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream';
  const gzip = COMPRESSIBLE.test(type) && body.length > 1024 ? gzipSync(body, { level: 9 }) : null;
  // Vite puts a content hash in every name under /assets/: those never change.
  const hashed = urlPath.startsWith('/assets/');
  return {
    body,
    gzip: gzip !== null && gzip.length < body.length ? gzip : null,
    type,
    etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
    cacheControl: hashed ? 'public, max-age=31536000, immutable' : 'no-cache',
  };
}

function acceptsGzip(request: FastifyRequest): boolean {
  const accept = request.headers['accept-encoding'];
  return typeof accept === 'string' && /\bgzip\b/.test(accept);
}

function send(file: UiFile, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  reply.headers(UI_SECURITY_HEADERS);
  reply.header('content-type', file.type);
  reply.header('cache-control', file.cacheControl);
  reply.header('etag', file.etag);
  reply.header('vary', 'accept-encoding');
  const match = request.headers['if-none-match'];
  if (typeof match === 'string' && match.split(',').some((m) => m.trim() === file.etag)) {
    return reply.code(304).send();
  }
  if (file.gzip !== null && acceptsGzip(request)) {
    reply.header('content-encoding', 'gzip');
    return reply.send(file.gzip);
  }
  return reply.send(file.body);
}

/**
 * Serves the built UI (`dir`, the Vite output dist/ui) at `/`: index.html for `/`, every other
 * file at its own path. The files are read once at start and each gets an exact route, so no
 * request path is ever joined onto the file system and nothing outside `dir` can be reached.
 * Unknown paths fall through to the shared not-found handler. The UI needs no token: it asks
 * for one and then calls /api like any other client.
 */
export async function uiRoutes(app: FastifyInstance, options: { dir: string }): Promise<void> {
  const dir = options.dir;
  const files = new Map<string, UiFile>();
  if (existsSync(dir) && statSync(dir).isDirectory()) {
    for (const path of listFiles(dir)) {
      const urlPath = `/${relative(dir, path).split(sep).join('/')}`;
      files.set(urlPath, loadFile(path, urlPath));
    }
  }
  const index = files.get('/index.html');
  // The page itself needs no token (it asks for one); it is hidden from the OpenAPI document.
  const route = { schema: { hide: true }, config: { access: 'open' as const } };
  if (index === undefined) {
    app.get('/', route, async (_request, reply) =>
      reply
        .code(503)
        .headers(UI_SECURITY_HEADERS)
        .send({ detail: 'The web UI is not built: run npm run build' }),
    );
    return;
  }
  app.get('/', route, async (request, reply) => send(index, request, reply));
  for (const [urlPath, file] of files) {
    // Exact, plain paths only: a name with route syntax (':', '*') or under /api is skipped.
    if (!SAFE_PATH.test(urlPath) || urlPath.startsWith('/api/')) continue;
    app.get(urlPath, route, async (request, reply) => send(file, request, reply));
  }
}
