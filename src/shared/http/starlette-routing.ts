/**
 * How a FastAPI service (Starlette's router behind uvicorn with h11) reads a request line, so
 * the board routes exactly as it would: the path percent-decoded as UTF-8 with replacement
 * (`%2F` becomes a separator, `#` is an ordinary character), a parameter as `[^/]+` (never
 * empty), then 405 for a path served with other methods, 307 to the path without its trailing
 * slashes, else 404 — all before any token is asked for.
 */

const UTF8 = new TextDecoder('utf-8', { ignoreBOM: true });

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x41 && c <= 0x46) return c - 0x37;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  return -1;
}

/** Python's `urllib.parse.unquote(s)`: UTF-8, invalid sequences become U+FFFD. */
export function pythonUnquote(s: string): string {
  if (!s.includes('%')) return s;
  let out = '';
  const bytes: number[] = [];
  const flush = () => {
    if (bytes.length === 0) return;
    out += UTF8.decode(Uint8Array.from(bytes));
    bytes.length = 0;
  };
  for (let i = 0; i < s.length; i += 1) {
    const c = s.charCodeAt(i);
    if (c === 0x25 && i + 2 < s.length) {
      const hi = hexValue(s.charCodeAt(i + 1));
      const lo = hexValue(s.charCodeAt(i + 2));
      if (hi >= 0 && lo >= 0) {
        bytes.push(hi * 16 + lo);
        i += 2;
        continue;
      }
    }
    if (c < 0x80) {
      bytes.push(c);
      continue;
    }
    flush();
    out += s[i];
  }
  flush();
  return out;
}

/**
 * Starlette's query parameters: `parse_qsl(qs, keep_blank_values=True)` (split on `&` only,
 * `+` is a space, a field without `=` has the value ""), as an object whose repeated keys hold
 * an array, in order.
 */
export function parseQueryString(qs: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = Object.create(null);
  for (const field of qs.split('&')) {
    if (field === '') continue;
    const eq = field.indexOf('=');
    const rawName = eq < 0 ? field : field.slice(0, eq);
    const rawValue = eq < 0 ? '' : field.slice(eq + 1);
    const name = pythonUnquote(rawName.replaceAll('+', ' '));
    const value = pythonUnquote(rawValue.replaceAll('+', ' '));
    const previous = out[name];
    if (previous === undefined) out[name] = value;
    else if (Array.isArray(previous)) previous.push(value);
    else out[name] = [previous, value];
  }
  return out;
}

const QUOTE_SAFE = new Set(
  "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-~:/%#?=@[]!$&'()*+,;",
);
const UTF8_ENCODER = new TextEncoder();

/** Python's `quote(url, safe=":/%#?=@[]!$&'()*+,;")`, as Starlette's RedirectResponse does. */
export function quoteLocation(url: string): string {
  let out = '';
  for (const ch of url) {
    if (QUOTE_SAFE.has(ch)) {
      out += ch;
      continue;
    }
    for (const byte of UTF8_ENCODER.encode(ch)) {
      out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
    }
  }
  return out;
}

/** A decoded path made safe for find-my-way, which decodes each parameter once more. */
export function encodeForRouter(decodedPath: string): string {
  return decodedPath
    .split('/')
    .map((segment) => encodeURIComponent(segment))
    .join('/');
}

/** A route as Starlette sees it: its methods and its path as a regular expression. */
interface TableRoute {
  methods: string[];
  pattern: RegExp;
}

/** What Starlette's router does with a method and a decoded path. */
export type RouteDecision =
  | { kind: 'full' }
  | { kind: 'method'; allow: string[] }
  | { kind: 'redirect'; path: string }
  | { kind: 'none' };

function compile(url: string): RegExp {
  const source = url
    .split('/')
    .map((segment) =>
      segment === '*'
        ? '.*'
        : // `:name{path}` is Starlette's path convertor: one or more segments, slashes included.
          segment
            .replace(/:[A-Za-z0-9_]+\{path\}/g, '\u0000')
            .replace(/[.+?^${}()|[\]\\]/g, '\\$&')
            .replace(/:[A-Za-z0-9_]+/g, '[^/]+')
            .replaceAll('\u0000', '.+'),
    )
    .join('/');
  return new RegExp(`^${source}$`, 's');
}

/** The routes of an app in the order they were added, matched the way Starlette matches. */
export class RouteTable {
  private readonly routes: TableRoute[] = [];
  private readonly byUrl = new Map<string, RegExp>();

  /**
   * Adds a route (Fastify path syntax: `:param`, a final `*`). `path`: the path Starlette would
   * match instead of `url` (a route whose parameter spans segments, which find-my-way cannot say).
   */
  add(methods: string[], url: string, path = url): void {
    const pattern = this.byUrl.get(url) ?? compile(path);
    this.byUrl.set(url, pattern);
    this.routes.push({ methods: methods.map((m) => m.toUpperCase()), pattern });
  }

  /** Whether the route added with `url` matches `path` as Starlette would (cheap: one test). */
  serves(url: string, path: string): boolean {
    return this.byUrl.get(url)?.test(path) ?? false;
  }

  /** Starlette's Router.app: a full match, else 405 for the first partial, else 307, else 404. */
  decide(method: string, path: string): RouteDecision {
    let partial: TableRoute | undefined;
    for (const route of this.routes) {
      if (!route.pattern.test(path)) continue;
      if (route.methods.includes(method)) return { kind: 'full' };
      partial ??= route;
    }
    if (partial !== undefined) return { kind: 'method', allow: partial.methods };
    if (path !== '/') {
      const other = path.endsWith('/') ? path.replace(/\/+$/, '') : `${path}/`;
      if (this.routes.some((r) => r.pattern.test(other))) return { kind: 'redirect', path: other };
    }
    return { kind: 'none' };
  }
}
