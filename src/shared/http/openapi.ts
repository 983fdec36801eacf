import { VERSION } from '../version.js';

/** What a program says of itself in its OpenAPI document. */
export interface OpenApiInfo {
  title: string;
  version: string;
  description: string;
  /** How each token form is described (which token it is). */
  bearerDescription: string;
  queryDescription: string;
}

export const OPENAPI_VERSION_INFO = { version: VERSION } as const;

/** Both ways a token may be presented, as OpenAPI security requirements. */
export const TOKEN_SECURITY = [{ HTTPBearer: [] }, { APIKeyQuery: [] }];

/** Open to anyone. */
export const NO_SECURITY: never[] = [];

const ValidationError = {
  title: 'ValidationError',
  type: 'object',
  properties: {
    loc: {
      title: 'Location',
      type: 'array',
      items: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
    },
    msg: { title: 'Message', type: 'string' },
    type: { title: 'Error Type', type: 'string' },
    ctx: { title: 'Context', type: 'object' },
    input: { title: 'Input' },
  },
  required: ['loc', 'msg', 'type'],
};

const HTTPValidationError = {
  title: 'HTTPValidationError',
  type: 'object',
  properties: {
    detail: {
      title: 'Detail',
      type: 'array',
      items: { $ref: '#/components/schemas/ValidationError' },
    },
  },
};

type Doc = Record<string, unknown> & {
  components?: Record<string, Record<string, unknown>>;
  paths?: Record<string, Record<string, Record<string, unknown>>>;
};

/** The FastAPI-shaped body of every error but 422: `{"detail": "…"}`. */
const HTTPError = {
  title: 'HTTPError',
  type: 'object',
  properties: { detail: { title: 'Detail', type: 'string' } },
  required: ['detail'],
};

const STATUS_TEXT: Readonly<Record<string, string>> = {
  '304': 'Not Modified',
  '307': 'Temporary Redirect: a last path parameter ending in "/" is sent to the path without it',
  '400': 'Bad Request: the body cannot be decoded (not UTF-8, or an integer of over 4300 digits)',
  '401': 'Not authenticated: no token, or a wrong one',
  '403': 'Forbidden',
  '404': 'Not Found',
  '405':
    'Method Not Allowed: a path parameter holding "/" made the path one that takes other methods',
  '409': 'Conflict',
  '413': 'Request body too large',
  '426': 'Upgrade Required',
  '429': 'Too many failed authentication attempts',
  '502': 'Bad Gateway: the machine is unreachable',
  '503': 'Service Unavailable: the detail says why (a store that cannot write: try again later)',
  '504': 'Gateway Timeout: the machine did not answer in time',
};

const DETAIL_RESPONSE = {
  'application/json': { schema: { $ref: '#/components/schemas/HTTPError' } },
};

/** Statuses without a body. */
const NO_BODY = new Set(['304', '307']);

/** Methods whose requests Fastify reads a body of (and refuses over the limit: 413). */
const BODY_METHODS = new Set(['post', 'put', 'patch', 'delete']);

/**
 * Statuses an operation answers by its kind, whatever its handler does: the token rule (401,
 * 403, 429), routing (a path parameter is decoded once, as uvicorn does, so one that is empty or
 * holds a `/` matches no route: 404, or another route's path that takes other methods: 405; one
 * that ends in `/` as the path's last part is redirected: 307), the body limit (413) and the
 * body's decoding (400). 422 is added beside them, with its own schema.
 */
function kindStatuses(
  path: string,
  method: string,
  operation: Json,
  open: boolean,
  paths: Record<string, Record<string, unknown>>,
): string[] {
  const statuses = open ? [] : ['401', '403', '429'];
  const parameters = Array.isArray(operation.parameters) ? (operation.parameters as Json[]) : [];
  if (parameters.some((p) => p.in === 'path')) statuses.push('404');
  if (reachesOtherMethods(path, method, paths)) statuses.push('405');
  if (path.endsWith('}')) statuses.push('307');
  if (BODY_METHODS.has(method.toLowerCase())) statuses.push('413');
  if (operation.requestBody !== undefined) statuses.push('400');
  return statuses;
}

/** Whether path parameters holding `/` can make `path` another path that does not take `method`. */
function reachesOtherMethods(
  path: string,
  method: string,
  paths: Record<string, Record<string, unknown>>,
): boolean {
  if (!path.includes('{')) return false;
  const parts = path.split(/\{[^}]+\}/).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const pattern = new RegExp(`^${parts.join('.+')}$`);
  return Object.entries(paths).some(
    ([other, operations]) =>
      other !== path && pattern.test(other.replace(/\{[^}]+\}/g, 'x')) && !(method in operations),
  );
}

/** FastAPI's title for a field or parameter: `key_proof` -> "Key Proof". */
export function fieldTitle(name: string): string {
  return name
    .split('_')
    .map((w) => (w === '' ? w : w[0]?.toUpperCase() + w.slice(1).toLowerCase()))
    .join(' ');
}

/**
 * FastAPI's `generate_unique_id`: the endpoint's function name, then the path with every
 * non-word character as `_`, then the method, so generated clients get the same method names.
 */
export function fastapiOperationId(name: string, path: string, method: string): string {
  return `${`${name}${path}`.replace(/[^\p{L}\p{N}_]/gu, '_')}_${method.toLowerCase()}`;
}

/** The function name a route without one would have: its method and its fixed path words. */
function defaultName(method: string, path: string): string {
  const words = path
    .split('/')
    .filter((w) => w !== '' && w !== 'api' && !w.startsWith('{'))
    .map((w) => w.replace(/[^A-Za-z0-9]+/g, '_'));
  return [method.toLowerCase(), ...words].join('_');
}

type Json = Record<string, unknown>;

/** A schema with a `title` becomes a named component, as pydantic names models and enums. */
function hoist(schema: unknown, components: Json): unknown {
  if (schema === null || typeof schema !== 'object') return schema;
  const s = schema as Json;
  if (typeof s.title !== 'string' || s.title === '') return schema;
  const title = s.title;
  const options = (s.anyOf ?? s.oneOf) as Json[] | undefined;
  let named: Json;
  const constant = (o: Json): unknown =>
    'const' in o ? o.const : Array.isArray(o.enum) && o.enum.length === 1 ? o.enum[0] : undefined;
  if (Array.isArray(options) && options.every((o) => constant(o) !== undefined)) {
    // pydantic writes an Enum as `enum`, not as a union of constants.
    named = { title, type: 'string', enum: options.map(constant) };
  } else {
    named = { ...s };
    const properties = s.properties as Record<string, Json> | undefined;
    if (properties !== undefined) {
      named.properties = Object.fromEntries(
        Object.entries(properties).map(([k, v]) => [k, { ...v, title: v.title ?? fieldTitle(k) }]),
      );
    }
  }
  components[title] = named;
  return { $ref: `#/components/schemas/${title}` };
}

/**
 * Completes the document @fastify/swagger generates into the one FastAPI would write: operation
 * ids named as FastAPI names them (`schema.operationId` is the endpoint's function name),
 * titled schemas as named components, titles on parameters, the validation components and a 422
 * wherever something is validated, every status the board answers, and security per operation.
 */
export function openApiTransform(generated: unknown, info: OpenApiInfo): Record<string, unknown> {
  const doc = structuredClone(generated) as Doc;
  doc.openapi = '3.1.0';
  doc.info = { title: info.title, version: info.version, description: info.description };
  const components = doc.components ?? {};
  const schemas: Json = { ...(components.schemas ?? {}) };
  components.securitySchemes = {
    HTTPBearer: { type: 'http', scheme: 'bearer', description: info.bearerDescription },
    APIKeyQuery: { type: 'apiKey', in: 'query', name: 'token', description: info.queryDescription },
  };
  delete doc.security;
  for (const [path, operations] of Object.entries(doc.paths ?? {})) {
    for (const [method, operation] of Object.entries(operations)) {
      completeOperation(operation, path, method, schemas, doc.paths ?? {});
    }
  }
  components.schemas = { ...schemas, HTTPError, HTTPValidationError, ValidationError };
  doc.components = components;
  return doc;
}

function completeOperation(
  operation: Json,
  path: string,
  method: string,
  schemas: Json,
  paths: Record<string, Record<string, unknown>>,
): void {
  const name = typeof operation.operationId === 'string' ? operation.operationId : null;
  operation.operationId = fastapiOperationId(name ?? defaultName(method, path), path, method);
  const parameters = Array.isArray(operation.parameters) ? (operation.parameters as Json[]) : [];
  for (const parameter of parameters) {
    const schema = hoist(parameter.schema, schemas) as Json;
    if (!('$ref' in schema)) schema.title = fieldTitle(String(parameter.name));
    parameter.schema = schema;
  }
  const body = operation.requestBody as { content?: Record<string, Json> } | undefined;
  for (const media of Object.values(body?.content ?? {}))
    media.schema = hoist(media.schema, schemas);
  const responses = (operation.responses ?? {}) as Record<string, Json>;
  responses['200'] ??= { content: { 'application/json': { schema: {} } } };
  const open = Array.isArray(operation.security) && operation.security.length === 0;
  if (open) delete operation.security;
  else operation.security = TOKEN_SECURITY;
  for (const status of kindStatuses(path, method, operation, open, paths)) responses[status] ??= {};
  for (const [status, response] of Object.entries(responses)) {
    if (status === '200') response.description = 'Successful Response';
    else if (STATUS_TEXT[status] !== undefined) response.description = STATUS_TEXT[status];
    // `default`: an answer passed through from elsewhere, as the route describes it.
    if (status === '200' || status === 'default') continue;
    if (NO_BODY.has(status)) delete response.content;
    else response.content = DETAIL_RESPONSE;
    if (status === '307') response.headers = { location: { schema: { type: 'string' } } };
  }
  if (parameters.length > 0 || body !== undefined) {
    responses['422'] = {
      description: 'Validation Error',
      content: {
        'application/json': { schema: { $ref: '#/components/schemas/HTTPValidationError' } },
      },
    };
  }
  operation.responses = responses;
}
