// What the board says of a PostgreSQL, without loading node-postgres (a board on SQLite never does).

/** host:port/database, for log lines: never the user's password. */
export function describePostgres(url: string): string {
  try {
    const u = new URL(url);
    return `postgres ${u.hostname}:${u.port || '5432'}${u.pathname}`;
  } catch {
    return 'postgres (unparsable URL)';
  }
}

/**
 * A database error in words a log line or a 503 may carry: node-postgres' messages name the
 * user at most, never the password; anything unexpected is reduced to its code.
 */
export function postgresFailure(error: unknown): string {
  const e = error as { code?: unknown; message?: unknown };
  const code = typeof e.code === 'string' ? e.code : '';
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ECONNRESET' || code === 'EPIPE') return 'connection lost';
  if (code === 'ETIMEDOUT') return 'timed out';
  if (code === '57P01' || code === '57P02' || code === '57P03') return 'server shutting down';
  if (code === '28P01' || code === '28000') return 'authentication failed';
  if (code === '53100') return 'server disk full';
  if (/CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ALTNAME/.test(code))
    return `the server's TLS certificate is not trusted (${code})`;
  if (code === '3D000') return 'no such database';
  const text = typeof e.message === 'string' ? e.message : '';
  if (/timeout/i.test(text)) return 'timed out';
  if (/terminat|Connection terminated|closed/i.test(text)) return 'connection lost';
  return 'database error';
}
