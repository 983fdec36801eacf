/**
 * Provokes, against a listening program, every status each operation of its OpenAPI document
 * can answer, and says which answers the document does not describe. A program's test gives a
 * table: for each operation a sample request that it would take, and the answers particular to
 * that operation. The answers every operation of a kind gives are made here from the document
 * itself: no token, a wrong token, the other token, too many wrong tokens; path parameters that
 * do not validate, are empty, hold a `/` or end in one, or make the path another operation's;
 * query parameters that do not validate; a body that is not JSON, not UTF-8, too large, or sent
 * with a malformed Content-Type.
 */

/** An OpenAPI operation, as far as the provocations read it. */
export interface DocOperation {
  parameters?: { name: string; in: string }[];
  requestBody?: unknown;
  security?: unknown[];
  responses: Record<string, unknown>;
}

export interface Doc {
  paths: Record<string, Record<string, DocOperation>>;
}

/** One request and the status it must be answered with. */
export interface Provocation {
  /** null: any status, so long as the description lists it. */
  status: number | null;
  why: string;
  /** The path with its query; default: the operation's sample path. */
  path?: string;
  /** Bearer token; default: the table's token; null: none. */
  token?: string | null;
  /** Extra headers, or what reads them just before the request (an ETag, say). */
  headers?: Record<string, string> | (() => Promise<Record<string, string>>);
  /** Default: the sample body (JSON) for a method that takes one. */
  body?: string | Uint8Array<ArrayBuffer>;
  /** Makes the program able to give this answer; returns what undoes it. */
  arrange?: () => (() => void) | Promise<() => void>;
  /** Requests with a wrong token sent first from the same address. */
  wrongTokensFirst?: number;
}

/** What a program's test says of one operation. */
export interface OperationEntry {
  /** A request the operation takes as it is: the path with values for its parameters. */
  path: string;
  /** A valid JSON body, for an operation with a request body. */
  body?: unknown;
  /** Whether the program's other token opens this operation (else it is refused with 403). */
  otherTokenOpens?: boolean;
  /**
   * A value (as sent: percent-encoded) that does not validate, by path parameter, for those that
   * take free text (where `-not%20valid-` would be valid).
   */
  invalidParams?: Record<string, string>;
  /** The answers particular to this operation. */
  provocations: Provocation[];
}

export interface Answered {
  operation: string;
  status: number | null;
  why: string;
  answered: number;
}

export interface ProgramUnderTest {
  url: string;
  token: string;
  /** The token that opens only some operations (the board's registration token, the agent's board key). */
  otherToken: string;
  /** The largest body the program takes, by operation. */
  bodyLimit: (operation: string) => number;
  /** X-Forwarded-For values, fresh each call (the failure limiter counts by address). */
  freshAddress: () => string;
  /** Wrong tokens an address may present before the program answers 429. */
  maxFailures: number;
  /** Called after each provocation (to let the failure limiter forget, say). */
  after?: () => void;
}

const WRONG_TOKEN = 'wrong-token-0123456789abcdef';
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** `METHOD /path/{param}` of every operation in the document. */
export function operationsOf(doc: Doc): string[] {
  return Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`),
  );
}

/** Whether the document describes `status` for the operation (exactly, as `4XX`, or `default`). */
export function describes(doc: Doc, operation: string, status: number): boolean {
  const [method = '', path = ''] = operation.split(' ');
  const responses = doc.paths[path]?.[method.toLowerCase()]?.responses ?? {};
  const s = String(status);
  return s in responses || `${s[0]}XX` in responses || 'default' in responses;
}

/** The sample path with the path parameter `param` (by the template) replaced by `value`. */
function withParam(template: string, sample: string, param: string, value: string): string {
  const [samplePath = '', query] = sample.split('?');
  const t = template.split('/');
  const s = samplePath.split('/');
  const at = t.indexOf(`{${param}}`);
  if (at >= 0) s[at] = value;
  return s.join('/') + (query === undefined ? '' : `?${query}`);
}

/** The answers every operation of its kind gives, read from the document. */
export function genericProvocations(
  doc: Doc,
  operation: string,
  op: DocOperation,
  entry: OperationEntry,
  program: ProgramUnderTest,
): Provocation[] {
  const [method = '', template = ''] = operation.split(' ');
  const out: Provocation[] = [];
  const secured = op.security !== undefined && op.security.length > 0;
  if (secured) {
    out.push({ status: 401, why: 'no token', token: null });
    out.push({ status: 401, why: 'a wrong token', token: WRONG_TOKEN });
    if (entry.otherTokenOpens !== true) {
      out.push({ status: 403, why: 'the other token', token: program.otherToken });
    }
    out.push({
      status: 429,
      why: 'too many wrong tokens from one address',
      wrongTokensFirst: program.maxFailures,
    });
  }
  const params = op.parameters ?? [];
  for (const p of params.filter((q) => q.in === 'path')) {
    // Empty as the last segment, where the path without it is another operation's: Starlette
    // redirects to that path (307), whatever methods it takes.
    const last = `/{${p.name}}`;
    const parent = template.endsWith(last) ? template.slice(0, -last.length) : null;
    out.push({
      status: parent !== null && doc.paths[parent] !== undefined ? 307 : 404,
      why: `an empty path parameter ${p.name}`,
      path: withParam(template, entry.path, p.name, ''),
    });
    out.push({
      status: 404,
      why: `a path parameter ${p.name} holding a /`,
      path: withParam(template, entry.path, p.name, 'a%2Fb'),
    });
    if (template.endsWith(`{${p.name}}`)) {
      out.push({
        status: 307,
        why: `the last path parameter ${p.name} ending in /`,
        path: withParam(template, entry.path, p.name, 'ab%2F'),
      });
    }
    out.push({
      status: 422,
      why: `a path parameter ${p.name} that does not validate`,
      path: withParam(
        template,
        entry.path,
        p.name,
        entry.invalidParams?.[p.name] ?? '-not%20valid-',
      ),
    });
  }
  out.push(...otherPathProvocations(template, doc));
  for (const p of params.filter((q) => q.in === 'query')) {
    const [bare = ''] = entry.path.split('?');
    out.push({
      status: 422,
      why: `query ${p.name} that does not validate`,
      path: `${bare}?${p.name}=%00x`,
    });
  }
  if (op.requestBody !== undefined) {
    out.push({ status: 422, why: 'a body that is not JSON', body: '{"' });
    out.push({ status: 422, why: 'a body of the wrong type', body: '[]' });
    out.push({
      status: 400,
      why: 'a body that is not UTF-8',
      body: new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x7d]),
    });
  }
  if (BODY_METHODS.has(method)) {
    out.push({
      status: null,
      why: 'a malformed Content-Type',
      headers: { 'content-type': 'not a media type' },
      body: op.requestBody === undefined ? 'x' : '{}',
    });
    out.push({
      status: 413,
      why: 'a body over the limit',
      body: `"${'x'.repeat(program.bodyLimit(operation))}"`,
    });
  }
  return out;
}

/**
 * Path parameters holding `/` (sent as %2F) that make the path another operation's: answered by
 * routing (405 when that path takes other methods) or by that operation, whatever the document
 * says of this one must hold.
 */
function otherPathProvocations(template: string, doc: Doc): Provocation[] {
  if (!template.includes('{')) return [];
  const literal = (part: string) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const pattern = new RegExp(
    `^${template
      .split(/\{[^}]+\}/)
      .map(literal)
      .join('(.+)')}$`,
  );
  const out: Provocation[] = [];
  for (const other of Object.keys(doc.paths)) {
    const found = other === template ? null : pattern.exec(other.replace(/\{[^}]+\}/g, 'x'));
    if (found === null) continue;
    let i = 0;
    const path = template.replace(/\{[^}]+\}/g, () => {
      i += 1;
      return (found[i] ?? '').replaceAll('/', '%2F');
    });
    out.push({ status: null, why: `path parameters that make the path ${other}`, path });
  }
  return out;
}

function noop(): void {}

/** Sends one provocation; the status it was answered with. */
export async function provoke(
  program: ProgramUnderTest,
  operation: string,
  entry: OperationEntry,
  p: Provocation,
): Promise<number> {
  const [method = ''] = operation.split(' ');
  const token = p.token === undefined ? program.token : p.token;
  const headers: Record<string, string> = { 'x-forwarded-for': program.freshAddress() };
  if (token !== null) headers.authorization = `Bearer ${token}`;
  let body: string | Uint8Array<ArrayBuffer> | undefined = p.body;
  if (body === undefined && entry.body !== undefined) body = JSON.stringify(entry.body);
  if (body !== undefined) headers['content-type'] ??= 'application/json';
  const url = `${program.url}${p.path ?? entry.path}`;
  for (let i = 0; i < (p.wrongTokensFirst ?? 0); i += 1) {
    const r = await fetch(url, {
      method,
      headers: { ...headers, authorization: `Bearer ${WRONG_TOKEN}` },
      ...(BODY_METHODS.has(method) && body !== undefined ? { body } : {}),
    });
    await r.arrayBuffer();
  }
  const undo = p.arrange === undefined ? noop : await p.arrange();
  try {
    Object.assign(headers, typeof p.headers === 'function' ? await p.headers() : p.headers);
    const r = await fetch(url, {
      method,
      headers,
      ...(BODY_METHODS.has(method) && body !== undefined ? { body } : {}),
      redirect: 'manual',
      signal: AbortSignal.timeout(20_000),
    });
    await r.arrayBuffer();
    return r.status;
  } finally {
    undo();
    program.after?.();
  }
}

/**
 * Runs every provocation of one operation: each must be answered as the table says (so it
 * really provokes that answer), and the document must describe what was answered.
 */
export async function provokeOperation(
  doc: Doc,
  program: ProgramUnderTest,
  operation: string,
  entry: OperationEntry,
): Promise<{ wrongAnswers: Answered[]; undescribed: Answered[] }> {
  const [method = '', path = ''] = operation.split(' ');
  const op = doc.paths[path]?.[method.toLowerCase()];
  if (op === undefined) throw new Error(`${operation} is not in the document`);
  const all = [...genericProvocations(doc, operation, op, entry, program), ...entry.provocations];
  const wrongAnswers: Answered[] = [];
  const undescribed: Answered[] = [];
  for (const p of all) {
    const answered = await provoke(program, operation, entry, p);
    const record = { operation, status: p.status, why: p.why, answered };
    if (p.status !== null && answered !== p.status) wrongAnswers.push(record);
    if (!describes(doc, operation, answered)) undescribed.push(record);
  }
  return { wrongAnswers, undescribed };
}

/** `route X has no provocations listed` for each operation of the document without an entry. */
export function unlisted(doc: Doc, table: Record<string, OperationEntry>): string[] {
  const described = operationsOf(doc);
  return [
    ...described
      .filter((op) => table[op] === undefined)
      .map((op) => `route ${op} has no provocations listed`),
    ...Object.keys(table)
      .filter((op) => !described.includes(op))
      .map((op) => `${op} has provocations listed but is not in the description`),
  ];
}

/** Every provocation of every operation: what was answered otherwise than listed, or undescribed. */
export async function disagreements(
  doc: Doc,
  program: ProgramUnderTest,
  table: Record<string, OperationEntry>,
): Promise<string[]> {
  const out: string[] = [];
  const line = (a: Answered) => `${a.operation}: ${a.why} -> ${a.answered}`;
  for (const op of operationsOf(doc)) {
    const entry = table[op];
    if (entry === undefined) continue;
    const { wrongAnswers, undescribed } = await provokeOperation(doc, program, op, entry);
    out.push(...wrongAnswers.map((a) => `${line(a)} (listed as ${a.status})`));
    out.push(...undescribed.map((a) => `${line(a)}, not in the description`));
  }
  return out;
}
