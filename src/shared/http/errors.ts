/**
 * The error catalogue of both programs: every refusal a handler makes, with its status and the
 * FastAPI-shaped `detail` it answers. Messages never carry a token, a key or a config value.
 */
export class HttpError extends Error {
  readonly statusCode: number;
  readonly headers: Record<string, string>;

  constructor(statusCode: number, detail: string, headers: Record<string, string> = {}) {
    super(detail);
    this.name = 'HttpError';
    this.statusCode = statusCode;
    this.headers = headers;
  }
}

export const NOT_AUTHENTICATED = 'Not authenticated';
export const BODY_LIMIT_BYTES = 1024 * 1024;

export const errors = {
  badRequest: (detail: string) => new HttpError(400, detail),
  notAuthenticated: () => new HttpError(401, NOT_AUTHENTICATED, { 'www-authenticate': 'Bearer' }),
  forbidden: (detail: string) => new HttpError(403, detail),
  notFound: (detail = 'Not Found') => new HttpError(404, detail),
  methodNotAllowed: (allow: string[]) =>
    new HttpError(405, 'Method Not Allowed', { allow: allow.join(', ') }),
  conflict: (detail: string) => new HttpError(409, detail),
  tooLarge: (limit: number) =>
    new HttpError(413, `Request body is too large (limit ${formatBytes(limit)})`),
  tooManyRequests: (retryAfterS: number) =>
    new HttpError(429, 'Too many failed authentication attempts; try again later', {
      'retry-after': String(retryAfterS),
    }),
  badGateway: (detail: string) => new HttpError(502, detail),
  gatewayTimeout: (detail: string) => new HttpError(504, detail),
  unavailable: (detail: string) => new HttpError(503, detail),
} as const;

function formatBytes(n: number): string {
  if (n % (1024 * 1024) === 0) return `${n / (1024 * 1024)} MiB`;
  if (n % 1024 === 0) return `${n / 1024} KiB`;
  return `${n} bytes`;
}
