const REDACTED = '[redacted]';

/**
 * A query parameter's name as the query parser sees it: `+` is a space and percent-escapes are
 * decoded (Fastify's parser does both), so `%74oken` and `tok%65n` are `token`.
 */
function parsedName(raw: string): string {
  const spaced = raw.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(spaced);
  } catch {
    // A broken escape stays as it is for the parser too; decode what can be decoded.
    return spaced.replace(/%([0-9a-f]{2})/gi, (_m, hex: string) =>
      String.fromCharCode(Number.parseInt(hex, 16)),
    );
  }
}

/** Whether a parameter of this (parsed) name may carry a credential (an OIDC callback's `code`). */
function isSecretName(name: string): boolean {
  const lower = name.trim().toLowerCase();
  return lower.includes('token') || lower === 'code';
}

/**
 * Replaces the value of every query parameter whose *parsed* name is a token (`token=`,
 * `%74oken=`, `tok%65n=`, any case, repeated or not) or an authorization `code` in a URL or path with `[redacted]`:
 * matching the raw text let `?%74oken=SECRET` authenticate and still reach the log.
 */
export function redactUrl(raw: string): string {
  const url = redactPushPath(raw);
  // Everything after the first `?` is the query, `#` included: that is what the parser reads.
  const question = url.indexOf('?');
  if (question === -1) return url;
  const query = url.slice(question + 1);
  const parts = query.split('&').map((part) => {
    const eq = part.indexOf('=');
    if (eq === -1) return part;
    return isSecretName(parsedName(part.slice(0, eq))) ? `${part.slice(0, eq)}=${REDACTED}` : part;
  });
  return `${url.slice(0, question)}?${parts.join('&')}`;
}

/**
 * A push check's URL is `/api/push/{token}`: the path itself is the credential. Any path under
 * /api/push/ (any case, repeated slashes) but the web push routes' `key` and `subscriptions`
 * has the rest of its path replaced.
 */
const PUSH_PATH = /^(\/+api\/+push\/+)(?!(?:key|subscriptions)(?:[/?#]|$))[^?#]*/i;

function redactPushPath(url: string): string {
  return url.replace(PUSH_PATH, (_all, head: string) => `${head}${REDACTED}`);
}
