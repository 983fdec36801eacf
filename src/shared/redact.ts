const TOKEN_PARAM = /([?&]token=)[^&#]*/gi;

/** Replaces the value of every `token=` query parameter in a URL or path with `[redacted]`. */
export function redactUrl(url: string): string {
  return url.replace(TOKEN_PARAM, '$1[redacted]');
}
