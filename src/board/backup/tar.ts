import { closeSync, fstatSync, fsyncSync, openSync, readSync, writeSync } from 'node:fs';

/**
 * Just enough of POSIX tar (ustar) for a backup: regular files, written and read in chunks so
 * that a history of gigabytes never sits in memory. `tar -tvf` and `tar -xf` read the result.
 */

const BLOCK = 512;
const CHUNK = 1 << 20;
/** The largest size the 11 octal digits of a ustar header hold (8 GiB - 1). */
const OCTAL_MAX = 0o77777777777;

function octal(value: number, width: number): string {
  return `${value.toString(8).padStart(width - 1, '0')}\0`;
}

function header(name: string, size: number, mode: number, mtime: number): Buffer {
  const block = Buffer.alloc(BLOCK);
  if (Buffer.byteLength(name) > 100) throw new Error(`tar: name too long: ${name}`);
  block.write(name, 0, 'utf8');
  block.write(octal(mode & 0o7777, 8), 100, 'ascii');
  block.write(octal(0, 8), 108, 'ascii');
  block.write(octal(0, 8), 116, 'ascii');
  if (size <= OCTAL_MAX) block.write(octal(size, 12), 124, 'ascii');
  else {
    // GNU's base-256 form for a file over 8 GiB (GNU and BSD tar read it).
    block[124] = 0x80;
    block.writeBigUInt64BE(BigInt(size), 124 + 4);
  }
  block.write(octal(Math.floor(mtime / 1000), 12), 136, 'ascii');
  block.write('        ', 148, 'ascii');
  block.write('0', 156, 'ascii');
  block.write('ustar\u000000', 257, 'ascii');
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
  return block;
}

/** Writes a tar file entry by entry; `close` ends it with the two empty blocks. */
export class TarWriter {
  private readonly fd: number;
  constructor(file: string) {
    this.fd = openSync(file, 'wx', 0o600);
  }

  /** Adds `source` (a file on disk) as `name`. */
  addFile(name: string, source: string, mode = 0o600): void {
    const input = openSync(source, 'r');
    try {
      const { size, mtimeMs } = fstatSync(input);
      writeSync(this.fd, header(name, size, mode, mtimeMs));
      const buffer = Buffer.alloc(CHUNK);
      let done = 0;
      while (done < size) {
        const n = readSync(input, buffer, 0, Math.min(CHUNK, size - done), done);
        if (n === 0) throw new Error(`${source} became shorter while it was read`);
        writeSync(this.fd, buffer, 0, n);
        done += n;
      }
      const pad = (BLOCK - (size % BLOCK)) % BLOCK;
      if (pad > 0) writeSync(this.fd, Buffer.alloc(pad));
    } finally {
      closeSync(input);
    }
  }

  /** Adds `bytes` as `name`. */
  addBytes(name: string, bytes: Buffer, mode = 0o600): void {
    writeSync(this.fd, header(name, bytes.length, mode, Date.now()));
    writeSync(this.fd, bytes);
    const pad = (BLOCK - (bytes.length % BLOCK)) % BLOCK;
    if (pad > 0) writeSync(this.fd, Buffer.alloc(pad));
  }

  /** Ends the archive, syncs it to disk and closes it. */
  close(): void {
    writeSync(this.fd, Buffer.alloc(2 * BLOCK));
    fsyncSync(this.fd);
    closeSync(this.fd);
  }

  /** Closes the file without ending it (the caller removes it). */
  abort(): void {
    closeSync(this.fd);
  }
}

/** One regular file of an archive: where its bytes start and how many there are. */
export interface TarEntry {
  name: string;
  offset: number;
  size: number;
}

function readSize(block: Buffer): number {
  if ((block[124] ?? 0) & 0x80) return Number(block.readBigUInt64BE(124 + 4));
  const text = block.toString('ascii', 124, 136).replace(/\0.*$/s, '').trim();
  if (!/^[0-7]+$/.test(text)) throw new Error('not a tar file (bad size field)');
  return Number.parseInt(text, 8);
}

/** Lists the regular files of the tar file open on `fd`, checking each header's checksum. */
export function listTar(fd: number): TarEntry[] {
  const total = fstatSync(fd).size;
  const entries: TarEntry[] = [];
  const block = Buffer.alloc(BLOCK);
  let at = 0;
  while (at + BLOCK <= total) {
    readSync(fd, block, 0, BLOCK, at);
    if (block.every((b) => b === 0)) return entries;
    let sum = 0;
    for (let i = 0; i < BLOCK; i += 1) sum += i >= 148 && i < 156 ? 32 : (block[i] ?? 0);
    const stored = Number.parseInt(block.toString('ascii', 148, 156).replace(/\0.*$/s, ''), 8);
    if (stored !== sum) throw new Error('not a tar file (header checksum does not match)');
    const size = readSize(block);
    const type = block.toString('ascii', 156, 157);
    const prefix = block.toString('utf8', 345, 500).replace(/\0.*$/s, '');
    const base = block.toString('utf8', 0, 100).replace(/\0.*$/s, '');
    const name = prefix === '' ? base : `${prefix}/${base}`;
    if (type === '0' || type === '\0') entries.push({ name, offset: at + BLOCK, size });
    at += BLOCK + Math.ceil(size / BLOCK) * BLOCK;
    if (at > total) throw new Error(`the archive is cut short (in ${name})`);
  }
  throw new Error('the archive is cut short (no end marker)');
}

/** Copies one entry's bytes to `fdOut`, handing each chunk to `seen` (for a checksum). */
export function copyEntry(
  fd: number,
  entry: TarEntry,
  fdOut: number,
  seen: (chunk: Buffer) => void,
): void {
  const buffer = Buffer.alloc(CHUNK);
  let done = 0;
  while (done < entry.size) {
    const n = readSync(fd, buffer, 0, Math.min(CHUNK, entry.size - done), entry.offset + done);
    if (n === 0) throw new Error(`the archive is cut short (in ${entry.name})`);
    const chunk = buffer.subarray(0, n);
    seen(chunk);
    writeSync(fdOut, chunk);
    done += n;
  }
}

/** Reads one (small) entry whole. */
export function readEntry(fd: number, entry: TarEntry): Buffer {
  const bytes = Buffer.alloc(entry.size);
  if (entry.size > 0) readSync(fd, bytes, 0, entry.size, entry.offset);
  return bytes;
}
