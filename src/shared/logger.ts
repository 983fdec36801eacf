import type { IncomingMessage } from 'node:http';
import { type Logger, pino } from 'pino';
import { redactUrl } from './redact.js';

export type { Logger } from 'pino';

/**
 * The structured logger of both programs: JSON lines on stdout, with every Authorization header
 * and every `?token=` removed before a line is written.
 */
export function createLogger(
  name: string,
  level = process.env.PANOPTES_LOG_LEVEL ?? 'info',
): Logger {
  return pino({
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
  });
}
