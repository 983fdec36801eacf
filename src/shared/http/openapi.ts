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

const STATUS_TEXT: Readonly<Record<string, string>> = {
  '304': 'Not Modified',
  '401': 'Not authenticated: no token, or a wrong one',
  '403': 'Forbidden',
  '404': 'Not Found',
  '409': 'Conflict',
  '413': 'Request body too large',
  '426': 'Upgrade Required',
  '429': 'Too many failed authentication attempts',
  '502': 'Bad Gateway: the machine is unreachable',
  '504': 'Gateway Timeout: the machine did not answer in time',
};

const DETAIL_RESPONSE = {
  'application/json': {
    schema: {
      type: 'object',
      properties: { detail: { type: 'string', title: 'Detail' } },
      required: ['detail'],
    },
  },
};

/** Statuses every operation behind a token can answer. */
const TOKEN_STATUSES = ['401', '403', '429'];

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
      completeOperation(operation, path, method, schemas);
    }
  }
  components.schemas = { ...schemas, HTTPValidationError, ValidationError };
  doc.components = components;
  return doc;
}

function completeOperation(operation: Json, path: string, method: string, schemas: Json): void {
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
  for (const status of open ? [] : TOKEN_STATUSES) responses[status] ??= {};
  for (const [status, response] of Object.entries(responses)) {
    if (status === '200') response.description = 'Successful Response';
    else if (STATUS_TEXT[status] !== undefined) response.description = STATUS_TEXT[status];
    if (status !== '200' && status !== '304') response.content = DETAIL_RESPONSE;
    if (status === '304') delete response.content;
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
