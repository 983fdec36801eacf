import type { IncomingMessage } from 'node:http';

/** How long an early answer waits for the rest of the request body, at most. */
export const LINGER_MS = 5000;
/** How many bytes of the rest of the body an early answer reads and throws away, at most. */
export const LINGER_BYTES = 16 * 1024 * 1024;

/**
 * Lets a client read an answer sent before its request body was read (a 413 from the
 * Content-Length, a 401 before the body): what nginx calls a lingering close.
 *
 * Closing a socket with unread bytes in its receive buffer makes the kernel send a reset, and a
 * client still sending its body often saw `EPIPE`/`ECONNRESET` instead of the answer (16 of 30
 * 3 MB reports did). So the answer goes out as an ordinary keep-alive answer and the rest of
 * the body is read and thrown away as it arrives; once it is all read, the connection is as
 * good as any other. A client that sends more than `maxBytes`, or takes longer than `maxMs`,
 * is cut: nobody holds a socket open, or the CPU busy, with an early answer.
 *
 * Call it before the answer is sent; it does nothing when the body has been read already.
 * The time limit counts from the refusal, not from the end of the answer.
 */
export function lingerAfterEarlyAnswer(
  request: IncomingMessage,
  dropConnectionClose: () => void,
  maxMs = LINGER_MS,
  maxBytes = LINGER_BYTES,
): void {
  if (request.complete) return;
  // `Connection: close` (which Fastify sets for a body it refused) makes Node destroy the
  // socket as soon as the answer is written: the reset this is here to avoid.
  dropConnectionClose();
  const socket = request.socket;
  let read = 0;
  const cut = (): void => {
    socket.destroy();
  };
  const timer = setTimeout(cut, maxMs);
  timer.unref();
  // Read (and drop) the rest here rather than let Node do it after the answer: a body Node
  // drops by itself is never seen by anyone, so it could not be counted.
  const count = (chunk: Buffer): void => {
    read += chunk.length;
    if (read > maxBytes) cut();
  };
  const done = (): void => {
    clearTimeout(timer);
    request.off('data', count);
    // A keep-alive socket outlives the request: its listener would pile up, one per answer.
    socket.off('close', done);
  };
  request.on('data', count);
  request.once('end', done);
  socket.once('close', done);
  request.resume();
}
