import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { type RunningProgram, startAgent } from '../harness/processes.js';
import {
  agentYaml,
  BOARD_KEY,
  expectNoSecrets,
  Http,
  OPERATOR,
  SECRETS,
} from './helpers/agent-fixtures.js';
import { scanForSecretsAfterAll } from './helpers/secret-scan.js';
import { tempDir } from './helpers/tmp.js';

const dir = tempDir('panoptes-agent-proxy-');
/** Everything the upstream was sent, for the check that no agent credential got there. */
const upstreamSaw: string[] = [];
let upstream: Server;
let wss: WebSocketServer;
let agent: RunningProgram;
let downAgent: RunningProgram;
let http: Http;

/** An upstream that echoes what it was asked, over HTTP and WebSocket. */
async function startUpstream(): Promise<Server> {
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const seen = {
        method: req.method,
        url: req.url,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      upstreamSaw.push(JSON.stringify(seen));
      if (req.url === '/unavailable') {
        res.writeHead(503, { 'content-type': 'text/plain' }).end('upstream says 503');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json', 'x-upstream': 'yes' });
      res.end(JSON.stringify(seen));
    });
  });
  wss = new WebSocketServer({ server });
  wss.on('connection', (socket, req) => {
    upstreamSaw.push(JSON.stringify({ ws: req.url, headers: req.headers }));
    socket.send(`hello ${req.url}`);
    socket.on('message', (data) => socket.send(`echo ${data.toString()}`));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return server;
}

/** A port nothing listens on (taken and given back). */
async function closedPort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}

beforeAll(async () => {
  upstream = await startUpstream();
  const { port } = upstream.address() as AddressInfo;
  agent = await startAgent(
    dir.write('up.yaml', agentYaml(`proxy: http://127.0.0.1:${port}\ndata_dir: ${dir.path}/d1\n`)),
  );
  downAgent = await startAgent(
    dir.write(
      'down.yaml',
      agentYaml(`proxy: http://127.0.0.1:${await closedPort()}\ndata_dir: ${dir.path}/d2\n`),
    ),
  );
  http = new Http(agent.url);
});

afterAll(async () => {
  await agent?.stop();
  await downAgent?.stop();
  wss?.close();
  upstream?.close();
  dir.cleanup();
});

describe('agent: /proxy/ over HTTP', () => {
  it('passes through without a token, keeping the path and the query', async () => {
    const r = await http.get('/proxy/some/page.html?b=2&a=1&a=%20x');
    expect(r.status).toBe(200);
    expect(r.headers.get('x-upstream')).toBe('yes');
    expect(r.json).toMatchObject({ method: 'GET', url: '/some/page.html?b=2&a=1&a=%20x' });
  });

  it('passes the method and the body through as they are', async () => {
    const r = await http.call('PUT', '/proxy/items/7', {
      raw: 'not json at all',
      headers: { 'content-type': 'text/plain' },
    });
    expect(r.json).toMatchObject({ method: 'PUT', url: '/items/7', body: 'not json at all' });
    const json = await http.post('/proxy/api', { body: { a: 5 } });
    expect(json.json).toMatchObject({ method: 'POST', body: '{"a":5}' });
  });

  it("never forwards the Authorization header, nor a ?token= that is the agent's", async () => {
    const r = await http.get('/proxy/x?keep=1', { token: OPERATOR });
    expect(r.json.headers.authorization).toBeUndefined();
    const q = await http.get('/proxy/x?keep=1', { token: BOARD_KEY, inQuery: true });
    expect(q.json.url).toBe('/x?keep=1');
    // A token of the upstream's own is its business and passes.
    const own = await http.get('/proxy/x?token=upstream-own-token');
    expect(own.json.url).toBe('/x?token=upstream-own-token');
  });

  it("passes the upstream's own error statuses through unchanged", async () => {
    const r = await http.get('/proxy/unavailable');
    expect(r.status).toBe(503);
    expect(r.text).toBe('upstream says 503');
  });

  it('502 with a FastAPI-shaped body when the upstream is down', async () => {
    const down = new Http(downAgent.url);
    const r = await down.get('/proxy/anything?x=1');
    expect(r.status).toBe(502);
    expect(r.json).toEqual({ detail: 'The proxy upstream is not reachable' });
    expect((await down.get('/api/health')).status).toBe(200);
    http.seen.push(...down.seen);
  });
});

describe('agent: /proxy/ over WebSocket', () => {
  it('passes messages both ways, with the path and query, without the credentials', async () => {
    const wsUrl = `${agent.url.replace(/^http/, 'ws')}/proxy/live/feed?room=3&token=${OPERATOR}`;
    const socket = new WebSocket(wsUrl, { headers: { authorization: `Bearer ${OPERATOR}` } });
    const received: string[] = [];
    const two = new Promise<void>((resolve, reject) => {
      socket.on('message', (data) => {
        received.push(data.toString());
        if (received.length === 1) socket.send('ping 1');
        if (received.length === 2) resolve();
      });
      socket.on('error', reject);
    });
    await two;
    socket.close();
    expect(received).toEqual(['hello /live/feed?room=3', 'echo ping 1']);
  });
});

describe('agent: /proxy/ and secrets', () => {
  it('the upstream never saw a credential; no answer or log line has one', () => {
    expect(upstreamSaw.length).toBeGreaterThan(5);
    expectNoSecrets(upstreamSaw, [OPERATOR, BOARD_KEY]);
    expectNoSecrets([...http.seen, ...agent.output, ...downAgent.output]);
  });
});

// Every answer, message, log line and data file of this file's tests, searched for every secret.
scanForSecretsAfterAll(() => ({ secrets: SECRETS, dirs: [dir.path] }));
