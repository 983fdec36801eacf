import { createReadStream } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { toLabels } from '../../shared/labels.js';
import { Type } from '../../shared/typebox.js';
import {
  AGENT_FILE_NAMES,
  type AgentFileName,
  SIGNED_SUMS_CONTEXT,
  SUMS_SIGNATURE_HEADER,
} from '../../shared/wire/agent-update.js';
import { labelIssue } from '../http/label-issue.js';
import { unprocessable } from '../http/selector-query.js';
import { sendAnswer } from '../http/send-answer.js';
import { Detail, EnrollAnswer, EnrollmentList, NameParams } from '../schemas.js';
import { AGENT_FILE_MISSING, AGENT_MJS, type AgentFiles, acceptsGzip } from './agent-files.js';
import { boardAddress } from './command.js';
import type { Enroller } from './enroller.js';
import type { Enrollments } from './enrollments.js';
import type { SumsSigner } from './sums-signer.js';

/** POST /api/machines/{name}/enroll's optional body: the dialog's labels. */
const EnrollBody = Type.Object(
  {
    labels: Type.Optional(
      Type.Record(Type.String({ maxLength: 200 }), Type.Unknown(), {
        maxProperties: 64,
        description:
          'board labels kept for the name, key: value (keys 1-63 of a-z 0-9 . _ / -, values empty or 1-63 of A-Z a-z 0-9 . _ -); absent: those it has stay',
      }),
    ),
  },
  { additionalProperties: false },
);

export interface EnrollRouteOptions {
  enroller: Enroller;
  enrollments: Enrollments;
  agentFiles: AgentFiles;
  signer: SumsSigner;
  /** `public_url`, and whether the board serves HTTPS (for the address in the command). */
  address: () => { publicUrl: string | null; tls: boolean };
}

/** Whether If-None-Match (`*` or a list of ETags, weak or strong) names this ETag. */
function matches(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return header.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t === etag || t === `W/${etag}`;
  });
}

/** Adding a machine from the board: the one-file agent, enroll, and the enrolled names. */
export async function enrollRoutes(app: FastifyInstance, options: EnrollRouteOptions) {
  const { enroller, enrollments, agentFiles } = options;

  app.get(
    '/agent/:file',
    {
      config: { access: 'open' },
      schema: {
        operationId: 'get_agent_file',
        summary:
          'An agent file: panoptes-agent.mjs (runs with `node` 20 or later) or the binary for a platform',
        description:
          'Open, like the UI: the agent holds no secret. Files: panoptes-agent.mjs, panoptes-agent-linux-x64, panoptes-agent-linux-arm64 (those built on this board). Its SHA-256 is in the ETag (`"<sha256>"`, or `"<sha256>-gzip"` for the gzip the build made, sent with Content-Encoding: gzip when Accept-Encoding allows it), in GET /agent/SHA256SUMS and in the enroll answer; the SHA-256 is always that of the uncompressed file.',
        params: Type.Object({
          file: Type.Union(AGENT_FILE_NAMES.map((name) => Type.Literal(name))),
        }),
        response: {
          200: Type.String({ description: 'JavaScript (an ES module), or an executable' }),
          304: Type.Null({ description: 'Not modified since the ETag' }),
          404: Detail,
          422: Detail,
        },
      },
    },
    async (request, reply) => {
      const { file: name } = request.params as { file: AgentFileName };
      const file = await agentFiles.get(name);
      if (file === null) {
        const detail =
          name === AGENT_MJS
            ? AGENT_FILE_MISSING
            : `${name} is not built on this board (GET /agent/SHA256SUMS lists the files it serves)`;
        return reply.code(404).send({ detail });
      }
      const gzip = acceptsGzip(request.headers['accept-encoding'])
        ? await agentFiles.gzipOf(file)
        : null;
      // One ETag per encoding: a cache must not answer a gzip request with the raw bytes.
      const etag = gzip === null ? `"${file.sha256}"` : `"${file.sha256}-gzip"`;
      reply
        .header('etag', etag)
        .header('cache-control', 'no-cache')
        .header('vary', 'accept-encoding');
      if (matches(request.headers['if-none-match'], etag)) return reply.code(304).send();
      const type =
        name === AGENT_MJS ? 'text/javascript; charset=utf-8' : 'application/octet-stream';
      reply.type(type);
      if (gzip !== null) {
        return reply
          .header('content-encoding', 'gzip')
          .header('content-length', gzip.size)
          .send(createReadStream(gzip.path));
      }
      return reply.header('content-length', file.size).send(agentFiles.open(file));
    },
  );

  app.get(
    '/agent/SHA256SUMS',
    {
      config: { access: 'open' },
      schema: {
        operationId: 'get_agent_sums',
        summary: 'The SHA-256 of every agent file this board serves (`sha256sum -c` format)',
        response: { 200: Type.String({ description: 'lines of `<hex>  <file>`' }) },
      },
    },
    async (_request, reply) => {
      const sums = await agentFiles.sums();
      // The signature travels with the text it signs: a file replaced between two requests
      // cannot pair one text with another's signature.
      reply
        .header('cache-control', 'no-cache')
        .header(SUMS_SIGNATURE_HEADER, await options.signer.sign(sums));
      return reply.type('text/plain; charset=utf-8').send(sums);
    },
  );

  app.get(
    '/agent/SHA256SUMS.sig',
    {
      config: { access: 'open' },
      schema: {
        operationId: 'get_agent_sums_signature',
        summary: "The board's Ed25519 signature of GET /agent/SHA256SUMS (base64)",
        description: `Over the bytes of the context line ${JSON.stringify(SIGNED_SUMS_CONTEXT)} followed by the SHA256SUMS text, with the key of GET /agent/update-key. The SHA256SUMS answer carries the same signature in its ${SUMS_SIGNATURE_HEADER} header (agents read that one: it cannot belong to another text).`,
        response: { 200: Type.String({ description: 'base64, one line' }) },
      },
    },
    async (_request, reply) => {
      const signature = await options.signer.sign(await agentFiles.sums());
      reply.header('cache-control', 'no-cache');
      return reply.type('text/plain; charset=utf-8').send(`${signature}\n`);
    },
  );

  app.get(
    '/agent/update-key',
    {
      config: { access: 'open' },
      schema: {
        operationId: 'get_update_key',
        summary: "The public key that signs this board's agent files (an agent's update_key)",
        description:
          'The raw Ed25519 public key, base64url. An agent takes an update only when SHA256SUMS verifies against the update_key in its config; the enroll pins it. Fetched over plain HTTP this proves nothing: compare it with the one the board page shows.',
        response: { 200: Type.String({ description: 'base64url, one line' }) },
      },
    },
    async (_request, reply) => {
      reply.header('cache-control', 'no-cache');
      return reply.type('text/plain; charset=utf-8').send(`${await options.signer.publicKey()}\n`);
    },
  );

  app.post(
    '/api/machines/:name/enroll',
    {
      // Enrolling gives a name a new key (one out of an admin's scope too): unscoped admins only.
      config: { access: 'admin', fleet: true },
      schema: {
        operationId: 'enroll_machine',
        summary: 'Add a machine: a fresh key for the name, and the command to paste on it',
        description:
          'Enrolling a name again makes a new key (the earlier one stops working). The command carries the registration token, never the board token. ' +
          "The body is optional: `labels` are board labels kept for the name (the machine has them from its first report; they win over its agent's); " +
          'a label that breaks the rule is a 422 naming it, before anything is kept. Enrolling again without `labels` keeps those it had; `{}` clears them.',
        params: NameParams,
        body: EnrollBody,
        response: { 200: EnrollAnswer, 409: Detail, 503: Detail },
      },
      // No body (no Content-Type, or zero bytes of any type): as {}, what the route always took.
      onRequest: async (request) => {
        const { headers } = request.raw;
        const empty =
          headers['content-length'] === '0' && headers['transfer-encoding'] === undefined;
        if (empty) delete headers['content-type'];
        if (headers['content-type'] === undefined) request.body = {};
      },
    },
    async (request, reply) => {
      const { name } = request.params as { name: string };
      const given = (request.body as { labels?: Record<string, unknown> } | undefined)?.labels;
      const issue = given === undefined ? null : labelIssue(given, ['body', 'labels']);
      if (issue !== null) return unprocessable(reply, [issue]);
      const { publicUrl, tls } = options.address();
      const board = boardAddress(publicUrl, tls, request.headers.host);
      const labels = given === undefined ? null : toLabels(given as Record<string, string>);
      const answer = await enroller.enroll(request.who, name, board, labels);
      // The answer holds a key: no cache keeps it.
      reply.header('cache-control', 'no-store');
      return sendAnswer(reply, answer);
    },
  );

  app.get(
    '/api/enrollments',
    {
      // Names of machines, any of them: an admin over the whole board only.
      config: { access: 'admin', fleet: true },
      schema: {
        operationId: 'list_enrollments',
        summary: 'The machines added from the board (names only, never a key)',
        response: { 200: EnrollmentList },
      },
    },
    async () => ({ enrollments: enrollments.list() }),
  );
}
