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

/**
 * Completes the document @fastify/swagger generates: the FastAPI validation components, a 422
 * response wherever a parameter or body is validated, and the two token forms.
 */
export function openApiTransform(generated: unknown, info: OpenApiInfo): Record<string, unknown> {
  const doc = structuredClone(generated) as Doc;
  doc.openapi = '3.1.0';
  doc.info = { title: info.title, version: info.version, description: info.description };
  const components = doc.components ?? {};
  components.schemas = { ...(components.schemas ?? {}), HTTPValidationError, ValidationError };
  components.securitySchemes = {
    HTTPBearer: { type: 'http', scheme: 'bearer', description: info.bearerDescription },
    APIKeyQuery: { type: 'apiKey', in: 'query', name: 'token', description: info.queryDescription },
  };
  doc.components = components;
  doc.security = TOKEN_SECURITY;
  for (const operations of Object.values(doc.paths ?? {})) {
    for (const operation of Object.values(operations)) {
      const validated =
        (Array.isArray(operation.parameters) && operation.parameters.length > 0) ||
        operation.requestBody !== undefined;
      const responses = (operation.responses ?? {}) as Record<string, unknown>;
      if (validated) {
        responses['422'] = {
          description: 'Validation Error',
          content: {
            'application/json': { schema: { $ref: '#/components/schemas/HTTPValidationError' } },
          },
        };
      }
      operation.responses = responses;
    }
  }
  return doc;
}
