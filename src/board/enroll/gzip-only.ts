import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';

/**
 * An agent binary the build keeps only gzipped (`<file>.gz`, a third of its size): its SHA-256
 * and size are those of the unzipped bytes, and a client that does not take gzip (busybox
 * `wget`) gets them unzipped on the way.
 */
export function openAgentFile(path: string, gzipOnly: boolean): Readable {
  if (!gzipOnly) return createReadStream(path);
  const source = createReadStream(`${path}.gz`);
  const gunzip = createGunzip();
  source.on('error', (error) => gunzip.destroy(error));
  return source.pipe(gunzip);
}

/** SHA-256 and length of the unzipped bytes of a .gz, streamed (a binary is ~150 MB). */
export async function gunzippedSha256(gzPath: string): Promise<{ sha256: string; size: number }> {
  const hash = createHash('sha256');
  let size = 0;
  const source = createReadStream(gzPath);
  const gunzip = createGunzip();
  source.on('error', (error) => gunzip.destroy(error));
  for await (const chunk of source.pipe(gunzip) as AsyncIterable<Buffer>) {
    hash.update(chunk);
    size += chunk.length;
  }
  return { sha256: hash.digest('hex'), size };
}
