import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/helpers/tmp.js';
import { DEFAULT_SOCKETS, dockerEngine, engineSockets } from './container-engine.js';

describe('engineSockets', () => {
  it('is the configured socket, else DOCKER_HOST when unix://, else the usual two', () => {
    expect(engineSockets('/srv/podman.sock', { DOCKER_HOST: 'unix:///x.sock' })).toEqual([
      '/srv/podman.sock',
    ]);
    expect(engineSockets(null, { DOCKER_HOST: 'unix:///run/user/1000/docker.sock' })).toEqual([
      '/run/user/1000/docker.sock',
    ]);
    expect(engineSockets(null, { DOCKER_HOST: 'tcp://10.0.0.1:2375' })).toEqual(DEFAULT_SOCKETS);
    expect(engineSockets(null, {})).toEqual(['/var/run/docker.sock', '/run/podman/podman.sock']);
  });
});

/** A stand-in engine on a unix socket, answering a few paths as Docker would. */
describe('dockerEngine on a unix socket', () => {
  const dir = tempDir('panoptes-engine-');
  const socket = `${dir.path}/engine.sock`;
  const seen: string[] = [];
  let server: Server;

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      const send = (status: number, body = '') => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(body);
      };
      if (req.url === '/containers/json?all=true') send(200, '[{"Id":"abc"}]');
      else if (req.url === '/containers/web/start') send(304);
      else if (req.url === '/containers/web/stop?t=3') send(204);
      else if (req.url === '/containers/huge/json') send(200, `"${'x'.repeat(2 * 1024 * 1024)}"`);
      else if (req.url === '/containers/garbled/json') send(200, 'not json');
      else if (req.url === '/containers/slow/json') setTimeout(() => send(200, '{}'), 5000);
      else send(404, '{"message":"no such container: \\u001b[31mx"}');
    });
    await new Promise<void>((resolve) => server.listen(socket, resolve));
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    dir.cleanup();
  });

  it('asks without a version prefix and reads the answers', async () => {
    const engine = dockerEngine([`${dir.path}/missing.sock`, socket]);
    expect(await engine.list(1000)).toEqual({ ok: true, value: [{ Id: 'abc' }] });
    // 304: already as asked, which is success.
    expect(await engine.start('web', 1000)).toEqual({ ok: true, value: 'already' });
    expect(await engine.stop('web', 2.5, 1000)).toEqual({ ok: true, value: 'done' });
    expect(seen).toEqual([
      'GET /containers/json?all=true',
      'POST /containers/web/start',
      'POST /containers/web/stop?t=3',
    ]);
    await engine.close();
  });

  it("refuses what it should not believe, with the engine's message as one clean line", async () => {
    const engine = dockerEngine([socket]);
    expect(await engine.inspect('nope', 1000)).toEqual({
      ok: false,
      kind: 'refused',
      status: 404,
      reason: 'the container engine answered HTTP 404: no such container: \ufffd[31mx',
    });
    expect(await engine.inspect('huge', 1000)).toMatchObject({
      ok: false,
      reason: 'the container engine answered more than 1048576 bytes',
    });
    expect(await engine.inspect('garbled', 1000)).toMatchObject({
      ok: false,
      reason: 'the container engine answered something that is not JSON',
    });
    expect(await engine.inspect('slow', 200)).toEqual({
      ok: false,
      kind: 'timeout',
      reason: 'the container engine did not answer within 200 ms',
    });
    await engine.close();
  });

  it('is absent without a socket file', async () => {
    const engine = dockerEngine([`${dir.path}/later.sock`]);
    expect(await engine.list(1000)).toMatchObject({ ok: false, kind: 'absent' });
    await engine.close();
  });
});
