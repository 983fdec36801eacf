import { WebSocket } from 'ws';
import type { LiveSelection } from './live-selection.js';

/** The size of each fragment of the board message: what one client adds to memory at a time. */
export const BOARD_PART_BYTES = 64 * 1024;

const BOARD_HEAD = '{"type":"board","board":';

/**
 * One live-feed client. The first message (the whole board) is sent as one WebSocket message in
 * fragments of 64 KiB, each written only once the previous one has left, from the view bytes the
 * board already holds: connecting no longer copies the board into a string and a frame per
 * client (at the largest board the caps allow, ~130 MB each). Browsers and `ws` reassemble the
 * fragments, so the message is the same `{"type":"board",…}` as before. Messages that arrive
 * meanwhile wait (a data message cannot be interleaved with a fragmented one), bounded in bytes.
 */
export class LiveClient {
  private streaming = false;
  private waiting: string[] = [];
  private waitingBytes = 0;
  /** The machines it selected (null: every machine). */
  selection: LiveSelection | null = null;

  constructor(
    readonly socket: WebSocket,
    private readonly maxBuffered: number,
    /** Called once when the client is dropped for being too slow. */
    private readonly onDrop: (buffered: number) => void,
  ) {}

  /**
   * Sends the board view (the bytes of GET /api/board) as the first message, in parts;
   * `release` once every part has been written (not when the client goes away meanwhile).
   */
  sendBoard(view: Buffer, release: () => void): void {
    // A board asked for (a new selection) while one is still going out waits whole behind it.
    if (this.streaming) {
      this.send(`${BOARD_HEAD}${view.toString('utf8')}}`);
      release();
      return;
    }
    if (view.length <= BOARD_PART_BYTES) {
      this.socket.send(`${BOARD_HEAD}${view.toString('utf8')}}`);
      release();
      return;
    }
    this.streaming = true;
    let offset = 0;
    const next = (error?: Error | null): void => {
      if (error || this.socket.readyState !== WebSocket.OPEN) return;
      if (offset >= view.length) {
        release();
        this.socket.send('}', { binary: false, fin: true }, () => this.finish());
        return;
      }
      const part = view.subarray(offset, offset + BOARD_PART_BYTES);
      offset += part.length;
      this.socket.send(part, { binary: false, fin: false }, next);
    };
    this.socket.send(BOARD_HEAD, { binary: false, fin: false }, next);
  }

  /** Sends one message, or keeps it until the board message is out; drops a client too slow. */
  send(message: string): void {
    if (this.streaming) {
      this.waitingBytes += Buffer.byteLength(message);
      if (this.waitingBytes > this.maxBuffered) {
        this.drop(this.waitingBytes);
        return;
      }
      this.waiting.push(message);
      return;
    }
    if (this.socket.bufferedAmount > this.maxBuffered) {
      this.drop(this.socket.bufferedAmount);
      return;
    }
    this.socket.send(message);
  }

  private finish(): void {
    this.streaming = false;
    const waiting = this.waiting;
    this.waiting = [];
    this.waitingBytes = 0;
    for (const message of waiting) this.send(message);
  }

  private drop(buffered: number): void {
    this.waiting = [];
    this.waitingBytes = 0;
    this.socket.terminate();
    this.onDrop(buffered);
  }
}
