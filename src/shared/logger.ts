import type { IncomingMessage } from 'node:http';
import { type DestinationStream, type Logger, pino } from 'pino';
import { redactUrl } from './redact.js';

export type { Logger } from 'pino';

/**
 * The structured logger of both programs: JSON lines on stdout, with every Authorization header
 * and every `?token=` removed before a line is written.
 */
export function createLogger(
  name: string,
  level = process.env.PANOPTES_LOG_LEVEL ?? 'info',
  /** Where the lines go (a test reads them); default standard output. */
  destination: DestinationStream = standardOutput(),
): Logger {
  return pino(
    {
      name,
      level,
      redact: {
        paths: [
          'req.headers.authorization',
          'headers.authorization',
          'authorization',
          'token',
          'key',
          'board_key',
          'board_token',
          'registration_token',
        ],
        censor: '[redacted]',
      },
      serializers: {
        req: (req: IncomingMessage & { ip?: string }) => ({
          method: req.method,
          url: redactUrl(req.url ?? ''),
          remoteAddress: req.ip ?? req.socket?.remoteAddress,
        }),
        url: (url: unknown) => (typeof url === 'string' ? redactUrl(url) : url),
      },
    },
    destination,
  );
}

/**
 * Standard output as pino's default destination (asynchronous), except that a write error
 * other than EAGAIN (the terminal it ran on was closed: EIO; a pipe with no reader: EPIPE)
 * ends logging instead of failing: unhandled, the error ended the process and its exit flush
 * then retried the same write forever, deaf to SIGTERM.
 */
function standardOutput(): DestinationStream {
  const out = pino.destination({ fd: process.stdout.fd ?? 1, sync: false, minLength: 0 });
  out.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EAGAIN' || error.code === 'EBUSY') return;
    const nothing = () => undefined;
    out.write = () => true;
    out.flush = nothing;
    out.flushSync = nothing;
    out.end = nothing;
  });
  return out;
}
