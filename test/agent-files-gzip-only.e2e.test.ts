import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningProgram, startBoard } from '../harness/processes.js';
import { writeBoardConfig } from './helpers/fleet.js';
import { tempDir } from './helpers/tmp.js';

const TOKEN = 'gzip-only-board-token-8e0a2c4e6a';
const BINARY = Buffer.from('a stand-in agent binary, kept only gzipped '.repeat(50_000));
const MJS = Buffer.from('export const agent = 1;\n');
const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** GET with exactly these headers (fetch would ask for gzip and unzip by itself). */
function raw(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    get(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
      res.on('error', reject);
    }).on('error', reject);
  });
}

/**
 * The build keeps each agent binary only as `<file>.gz` (a third of the bytes on disk): the
 * board still serves the binary to every client, gzipped to those that take it and unzipped on
 * the way to those that do not (busybox wget), with the SHA-256 of the unzipped bytes.
 */
describe('an agent binary kept only gzipped', () => {
  const dir = tempDir('panoptes-gzip-only-');
  let board: RunningProgram;
  const name = 'panoptes-agent-linux-x64';

  beforeAll(async () => {
    writeFileSync(`${dir.path}/panoptes-agent.mjs`, MJS);
    writeFileSync(`${dir.path}/${name}.gz`, gzipSync(BINARY, { level: 6 }));
    board = await startBoard(
      writeBoardConfig(dir, 'b', { board_token: TOKEN, agent_files: dir.path }),
    );
  });
  afterAll(async () => {
    await board.stop();
    dir.cleanup();
  });

  it('is listed in SHA256SUMS with the SHA-256 of its unzipped bytes', async () => {
    const sums = await raw(`${board.url}/agent/SHA256SUMS`, {});
    expect(sums.body.toString()).toBe(`${sha(MJS)}  panoptes-agent.mjs\n${sha(BINARY)}  ${name}\n`);
  });

  it('is sent unzipped to a client that does not take gzip', async () => {
    const answer = await raw(`${board.url}/agent/${name}`, {});
    expect(answer.status).toBe(200);
    expect(answer.headers['content-encoding']).toBeUndefined();
    expect(Number(answer.headers['content-length'])).toBe(BINARY.length);
    expect(answer.headers.etag).toBe(`"${sha(BINARY)}"`);
    expect(answer.body.equals(BINARY)).toBe(true);
  });

  it('is sent as its .gz to a client that takes gzip', async () => {
    const answer = await raw(`${board.url}/agent/${name}`, { 'accept-encoding': 'gzip' });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-encoding']).toBe('gzip');
    expect(answer.headers.etag).toBe(`"${sha(BINARY)}-gzip"`);
    expect(Number(answer.headers['content-length'])).toBe(answer.body.length);
    expect(answer.body.length).toBeLessThan(BINARY.length / 10);
    expect(gunzipSync(answer.body).equals(BINARY)).toBe(true);
  });
});
