import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { Agent, request } from 'undici';
import { SUMS_SIGNATURE_HEADER } from '../../shared/wire/agent-update.js';
import { SUMS_MAX_BYTES } from './sums.js';

/** The largest agent file taken (a binary is ~100–150 MB). */
export const FILE_MAX_BYTES = 250 * 1024 * 1024;
/** The whole download of the file, however slow the line. */
export const DOWNLOAD_TIMEOUT_MS = 10 * 60 * 1000;
/** Connecting, the first byte of an answer, and any pause in the body. */
const STALL_MS = 30_000;

/**
 * Where updates come from: the board's URL, the CA it is trusted by (null: the system's), and the
 * board's update-signing public key the enroll pinned (null: none, and updates are refused).
 */
export interface UpdateSource {
  board: string;
  ca: string | null;
  key: string | null;
}

/** Reads the board's agent files; one dispatcher per update (closed by `close`). */
export class BoardFiles {
  private readonly dispatcher: Agent;

  constructor(private readonly source: UpdateSource) {
    const connect = { timeout: STALL_MS, ...(source.ca === null ? {} : { ca: source.ca }) };
    this.dispatcher = new Agent({ connect, headersTimeout: STALL_MS, bodyTimeout: STALL_MS });
  }

  /** GET {board}/agent/SHA256SUMS as text (at most 64 KiB), and the signature it came with. */
  async sums(): Promise<{ text: string; signature: string | null }> {
    const response = await this.get('SHA256SUMS', STALL_MS);
    const header = response.headers[SUMS_SIGNATURE_HEADER];
    const signature = typeof header === 'string' ? header : null;
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of response.body) {
      size += (chunk as Buffer).length;
      if (size > SUMS_MAX_BYTES) {
        response.body.destroy();
        throw new Error('SHA256SUMS is larger than 64 KiB');
      }
      chunks.push(chunk as Buffer);
    }
    return { text: Buffer.concat(chunks).toString('utf8'), signature };
  }

  /**
   * Streams GET {board}/agent/{name} into `write`, hashing it on the way; returns the hex SHA-256
   * and size of the file itself. It asks for gzip (a binary crosses the network in a third of
   * its size) and unzips as it goes. Throws past the size cap, on the wire or unzipped (a gzip
   * bomb fills no disk), or past the time-out.
   */
  async download(
    name: string,
    write: (chunk: Buffer) => Promise<void>,
  ): Promise<{ sha256: string; size: number }> {
    const response = await this.get(name, DOWNLOAD_TIMEOUT_MS, { 'accept-encoding': 'gzip' });
    const tooLarge = () => new Error(`the board's ${name} is larger than 250 MB`);
    const encoding = String(response.headers['content-encoding'] ?? 'identity').toLowerCase();
    if (encoding !== 'gzip' && encoding !== 'identity') {
      response.body.destroy();
      throw new Error(`the board sent ${name} in an encoding not asked for (${encoding})`);
    }
    const declared = Number(response.headers['content-length']);
    if (Number.isFinite(declared) && declared > FILE_MAX_BYTES) {
      response.body.destroy();
      throw tooLarge();
    }
    const body = response.body;
    async function* wire() {
      let received = 0;
      for await (const chunk of body) {
        received += (chunk as Buffer).length;
        if (received > FILE_MAX_BYTES) throw tooLarge();
        yield chunk as Buffer;
      }
    }
    const source = Readable.from(wire(), { objectMode: false });
    const gunzip = encoding === 'gzip' ? createGunzip() : null;
    if (gunzip !== null) source.on('error', (error) => gunzip.destroy(error)).pipe(gunzip);
    const hash = createHash('sha256');
    let size = 0;
    try {
      for await (const chunk of gunzip ?? source) {
        const buffer = chunk as Buffer;
        size += buffer.length;
        if (size > FILE_MAX_BYTES) throw tooLarge();
        hash.update(buffer);
        await write(buffer);
      }
    } finally {
      // Ended, or given up on: either way nothing more is read.
      source.destroy();
      gunzip?.destroy();
      body.destroy();
    }
    return { sha256: hash.digest('hex'), size };
  }

  close(): Promise<void> {
    return this.dispatcher.close();
  }

  private async get(name: string, timeoutMs: number, headers: Record<string, string> = {}) {
    // The name is one of AGENT_FILE_NAMES or SHA256SUMS, never taken from a request.
    const url = `${this.source.board}/agent/${encodeURIComponent(name)}`;
    const response = await request(url, {
      dispatcher: this.dispatcher,
      headers,
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (response.statusCode !== 200) {
      await response.body.dump().catch(() => undefined);
      throw new Error(`the board answered ${response.statusCode} for /agent/${name}`);
    }
    return response;
  }
}
