import type {} from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { errors } from '../../shared/http/errors.js';
import { NO_SECURITY } from '../../shared/http/openapi.js';
import { Type } from '../../shared/typebox.js';
import { VERSION } from '../../shared/version.js';
import type { Languages } from '../lang/languages.js';
import { Catalogue, CodeParams, Detail, LanguageItem } from '../schemas.js';

/** GET /api/health, /api/openapi.json, /api/languages and /api/language/{code}. */
export async function metaRoutes(
  app: FastifyInstance,
  options: { languages: Languages },
): Promise<void> {
  const { languages } = options;

  app.get(
    '/api/health',
    {
      config: { access: 'open' },
      schema: {
        operationId: 'health',
        summary: 'Whether the board itself is up (no token needed)',
        security: NO_SECURITY,
        response: { 200: Type.Object({ status: Type.Literal('ok'), version: Type.String() }) },
      },
    },
    async () => ({ status: 'ok', version: VERSION }),
  );

  app.get(
    '/api/openapi.json',
    {
      schema: {
        operationId: 'openapi',
        summary: 'This document: OpenAPI 3.1.0 (board token)',
        response: { 200: Type.Object({}, { additionalProperties: true }) },
      },
    },
    async () => app.swagger(),
  );

  app.get(
    '/api/languages',
    {
      // Every signed-in role reads the page in its language.
      config: { access: 'viewer' },
      schema: {
        operationId: 'get_languages',
        summary: 'The interface languages: built-in and from the config lang/ directory',
        response: { 200: Type.Array(LanguageItem) },
      },
    },
    async () => languages.list(),
  );

  app.get(
    '/api/language/:code',
    {
      // Every signed-in role reads the page in its language.
      config: { access: 'viewer' },
      schema: {
        operationId: 'get_language',
        summary: 'One language catalogue',
        params: CodeParams,
        response: { 200: Catalogue, 404: Detail },
      },
    },
    async (request) => {
      const { code } = request.params as { code: string };
      const catalogue = await languages.get(code);
      if (catalogue === null) throw errors.notFound(`No language '${code}' on this board`);
      return catalogue;
    },
  );
}
