import { createHash } from 'node:crypto';
import { utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/helpers/tmp.js';
import { sumsSigned } from '../../shared/sums-signature.js';
import {
  SIGNED_SUMS_CONTEXT,
  SUMS_SIGNATURE_HEADER,
  UPDATE_KEY_PATTERN,
} from '../../shared/wire/agent-update.js';
import { MemoryStore } from '../store/memory/state-store.js';
import { AgentFiles, acceptsGzip } from './agent-files.js';
import { enrollRoutes } from './enroll-routes.js';
import type { Enroller } from './enroller.js';
import type { Enrollments } from './enrollments.js';
import { SumsSigner } from './sums-signer.js';

const BINARY = Buffer.from('a stand-in agent binary '.repeat(4000));
const NAME = 'panoptes-agent-linux-x64';
const SHA = createHash('sha256').update(BINARY).digest('hex');

/** GET /agent/<file> with the gzip the build writes beside it: served as it is, never made here. */
describe('GET /agent/<file> and its .gz', () => {
  const dir = tempDir('panoptes-agent-gz-');
  const app = Fastify();
  const path = join(dir.path, NAME);
  const get = (headers: Record<string, string> = {}) =>
    app.inject({ method: 'GET', url: `/agent/${NAME}`, headers });
  /** Sets the modification times: the .gz `gzAge` seconds after the file (negative: before). */
  const ages = (gzAge: number) => {
    const now = Date.now() / 1000;
    utimesSync(path, now - 100, now - 100);
    utimesSync(`${path}.gz`, now - 100 + gzAge, now - 100 + gzAge);
  };

  beforeAll(async () => {
    writeFileSync(path, BINARY);
    writeFileSync(`${path}.gz`, gzipSync(BINARY, { level: 6 }));
    await enrollRoutes(app, {
      enroller: {} as Enroller,
      enrollments: {} as Enrollments,
      agentFiles: new AgentFiles(() => dir.path),
      signer: new SumsSigner(new MemoryStore().signing, () => 0),
      address: () => ({ publicUrl: null, tls: false }),
    });
  });
  afterAll(async () => {
    await app.close();
    dir.cleanup();
  });

  it('sends the .gz to a client that accepts gzip, with its own ETag', async () => {
    ages(10);
    const r = await get({ 'accept-encoding': 'gzip, deflate, br' });
    expect(r.statusCode).toBe(200);
    expect(r.headers['content-encoding']).toBe('gzip');
    expect(r.headers.vary).toMatch(/accept-encoding/i);
    expect(r.headers.etag).toBe(`"${SHA}-gzip"`);
    expect(Number(r.headers['content-length'])).toBe(r.rawPayload.length);
    expect(r.rawPayload.length).toBeLessThan(BINARY.length / 10);
    expect(gunzipSync(r.rawPayload).equals(BINARY)).toBe(true);
  });

  it('sends the file as it is to a client that does not ask for gzip, or refuses it', async () => {
    ages(10);
    for (const headers of [
      {},
      { 'accept-encoding': 'identity' },
      { 'accept-encoding': 'gzip;q=0' },
    ]) {
      const r = await get(headers);
      expect(r.statusCode).toBe(200);
      expect(r.headers['content-encoding']).toBeUndefined();
      expect(r.headers.vary).toMatch(/accept-encoding/i);
      expect(r.headers.etag).toBe(`"${SHA}"`);
      expect(Number(r.headers['content-length'])).toBe(BINARY.length);
      expect(r.rawPayload.equals(BINARY)).toBe(true);
    }
  });

  it('sends the file as it is when its .gz is older than it (the file was replaced since)', async () => {
    ages(-10);
    const r = await get({ 'accept-encoding': 'gzip' });
    expect(r.headers['content-encoding']).toBeUndefined();
    expect(r.headers.etag).toBe(`"${SHA}"`);
    expect(r.rawPayload.equals(BINARY)).toBe(true);
  });

  it('answers 304 per encoding: each ETag holds for its own encoding only', async () => {
    ages(10);
    const gz = { 'accept-encoding': 'gzip' };
    expect((await get({ ...gz, 'if-none-match': `"${SHA}-gzip"` })).statusCode).toBe(304);
    expect((await get({ ...gz, 'if-none-match': `"other", "${SHA}-gzip"` })).statusCode).toBe(304);
    expect((await get({ 'if-none-match': `"${SHA}"` })).statusCode).toBe(304);
    const raw = await get({ 'if-none-match': `"${SHA}-gzip"` });
    expect(raw.statusCode).toBe(200);
    expect(raw.rawPayload.equals(BINARY)).toBe(true);
    const zipped = await get({ ...gz, 'if-none-match': `"${SHA}"` });
    expect(zipped.statusCode).toBe(200);
    expect(zipped.headers['content-encoding']).toBe('gzip');
  });

  it('signs SHA256SUMS with the key it serves as update-key; the agent verifies it', async () => {
    const sums = await app.inject({ method: 'GET', url: '/agent/SHA256SUMS' });
    expect(sums.statusCode).toBe(200);
    expect(sums.body).toBe(`${SHA}  panoptes-agent-linux-x64\n`);
    const key = (await app.inject({ method: 'GET', url: '/agent/update-key' })).body.trim();
    expect(key).toMatch(new RegExp(UPDATE_KEY_PATTERN));
    const signature = sums.headers[SUMS_SIGNATURE_HEADER] as string;
    expect(sumsSigned(sums.body, signature, key)).toBe(true);
    const sig = (await app.inject({ method: 'GET', url: '/agent/SHA256SUMS.sig' })).body.trim();
    expect(sumsSigned(sums.body, sig, key)).toBe(true);
    // The signature holds for that text alone, and under no other key.
    expect(sumsSigned(sums.body.replace(SHA.slice(0, 4), '0000'), signature, key)).toBe(false);
    expect(sumsSigned(sums.body, signature, 'A'.repeat(43))).toBe(false);
    // Of the context line too: the key signs nothing that reads as SHA256SUMS without it.
    expect(sumsSigned(`${SIGNED_SUMS_CONTEXT}${sums.body}`, signature, key)).toBe(false);
  });

  it('reads Accept-Encoding with its weights', () => {
    expect(acceptsGzip('gzip')).toBe(true);
    expect(acceptsGzip('deflate, gzip;q=0.5')).toBe(true);
    expect(acceptsGzip('x-gzip')).toBe(true);
    expect(acceptsGzip('*')).toBe(true);
    expect(acceptsGzip('gzip;q=0, *')).toBe(false);
    expect(acceptsGzip('br, deflate')).toBe(false);
    expect(acceptsGzip('identity')).toBe(false);
    expect(acceptsGzip(undefined)).toBe(false);
  });
});
