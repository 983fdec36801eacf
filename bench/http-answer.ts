/**
 * A whole HTTP/1.1 answer read off a raw socket, with a content-length (as the board, the bare
 * server and the simulated agents send), or null while it is still incomplete. Without a
 * content-length the body is taken as empty.
 */
export function parseAnswer(bytes: Buffer): { status: number; body: string } | null {
  const end = bytes.indexOf('\r\n\r\n');
  if (end < 0) return null;
  const head = bytes.subarray(0, end).toString('latin1');
  const status = Number(head.slice(9, 12));
  const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? Number.NaN);
  if (!Number.isFinite(length)) return { status, body: '' };
  if (bytes.length < end + 4 + length) return null;
  return { status, body: bytes.subarray(end + 4, end + 4 + length).toString('utf8') };
}
