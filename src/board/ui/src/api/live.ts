import type { Api } from './client.js';
import type { LiveMessage } from './types.js';

export type LiveStatus = 'connecting' | 'live' | 'reconnecting';

export interface LiveHandlers {
  status(status: LiveStatus): void;
  /** A message, with the performance.now() at which it arrived (before parsing). */
  message(message: LiveMessage, receivedAt: number): void;
  /** After this many failed attempts in a row: a chance to check whether the token still works. */
  failing(attempts: number): void;
}

export interface LiveConnection {
  close(): void;
}

const MIN_DELAY_MS = 500;
const MAX_DELAY_MS = 10_000;

/**
 * Keeps a WebSocket to /api/live open. On loss it says 'reconnecting' and tries again with
 * growing, jittered delays; every new connection starts with a whole board, so nothing missed
 * while away is lost. No HTTP polling happens while the socket is up.
 */
export function connectLive(api: Api, handlers: LiveHandlers): LiveConnection {
  let socket: WebSocket | null = null;
  let closed = false;
  let attempts = 0;
  let timer: number | undefined;

  const open = () => {
    timer = undefined;
    if (closed) return;
    handlers.status(attempts === 0 ? 'connecting' : 'reconnecting');
    const ws = new WebSocket(api.liveUrl());
    socket = ws;
    ws.onmessage = (event) => {
      const receivedAt = performance.now();
      let message: LiveMessage | null = null;
      try {
        message = api.parseLive(event.data);
      } catch {
        return; // one unreadable message must not end the session
      }
      if (message === null) return;
      if (message.type === 'board') {
        attempts = 0;
        handlers.status('live');
      }
      handlers.message(message, receivedAt);
    };
    ws.onclose = () => {
      if (socket !== ws) return;
      socket = null;
      if (closed) return;
      attempts += 1;
      handlers.status('reconnecting');
      if (attempts % 3 === 0) handlers.failing(attempts);
      const delay = Math.min(MAX_DELAY_MS, MIN_DELAY_MS * 2 ** Math.min(attempts - 1, 8));
      timer = window.setTimeout(open, delay / 2 + Math.random() * (delay / 2));
    };
  };

  // Back online, or back to a visible tab: try at once instead of waiting for the delay.
  const retryNow = () => {
    if (socket === null && timer !== undefined && !closed) {
      window.clearTimeout(timer);
      open();
    }
  };
  window.addEventListener('online', retryNow);
  document.addEventListener('visibilitychange', retryNow);
  open();

  return {
    close() {
      closed = true;
      window.removeEventListener('online', retryNow);
      document.removeEventListener('visibilitychange', retryNow);
      if (timer !== undefined) window.clearTimeout(timer);
      const ws = socket;
      socket = null;
      if (ws === null) return;
      // Closing a socket that is still opening makes the browser log an error: wait for it.
      if (ws.readyState === WebSocket.CONNECTING) ws.onopen = () => ws.close();
      else ws.close();
    },
  };
}
