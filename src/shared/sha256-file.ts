import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';

/** How much of the file is read at a time, into the one buffer a hash reuses. */
const CHUNK_BYTES = 1024 * 1024;

/**
 * Hex SHA-256 of a file (an agent binary is ~150 MB), read in turn into one buffer: a read
 * stream's new 64 KiB buffer per chunk left the board's malloc heap ~30 MB larger for good.
 */
export async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  const file = await open(path, 'r');
  try {
    const buffer = Buffer.allocUnsafeSlow(CHUNK_BYTES);
    for (;;) {
      const { bytesRead } = await file.read(buffer, 0, CHUNK_BYTES, null);
      if (bytesRead === 0) break;
      hash.update(buffer.subarray(0, bytesRead));
    }
  } finally {
    await file.close();
  }
  return hash.digest('hex');
}
