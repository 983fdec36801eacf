import type { FastifyInstance, FastifyReply } from 'fastify';
import { BODY_LIMIT_BYTES } from '../../shared/http/errors.js';
import { isJsonContentType } from '../../shared/http/route-answer.js';
import { tooDeepAt } from '../../shared/json-depth.js';
import { MCP_LIMITS } from '../mcp/mcp-limits.js';
import type { McpDomain } from '../mcp/mcp-tools.js';

/**
 * The MCP SDK and the tools, loaded at the first POST /mcp: with zod they are ~11 MB of heap,
 * which a board no MCP client talks to does not need. A failed load is tried again next time.
 */
let loaded: Promise<
  [
    typeof import('../mcp/mcp-tools.js'),
    typeof import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
  ]
> | null = null;
function loadMcp() {
  loaded ??= Promise.all([
    import('../mcp/mcp-tools.js'),
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
  ]).catch((error: unknown) => {
    loaded = null;
    throw error;
  });
  return loaded;
}

/** JSON-RPC's code for a body that is not JSON. */
const PARSE_ERROR = -32700;
/** JSON-RPC's code for a message that is not a valid request (here: too large a batch). */
const INVALID_REQUEST = -32600;

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The JSON-RPC message of a body, null when it is not JSON (the SDK then refuses the content
 * type: 415), or undefined when a JSON body cannot be read (answered here: parse error).
 */
function messageOf(body: unknown, contentType: string | undefined): unknown {
  if (!isJsonContentType(contentType)) return null;
  if (!Buffer.isBuffer(body)) return undefined;
  let text: string;
  try {
    text = strictUtf8.decode(body);
  } catch {
    return undefined;
  }
  // As deep as any other body the board takes (an answer must serialise again).
  if (tooDeepAt(text) >= 0) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function rpcError(reply: FastifyReply, code: number, message: string): FastifyReply {
  return reply.code(400).send({ jsonrpc: '2.0', error: { code, message }, id: null });
}

/**
 * POST /mcp: the Model Context Protocol over Streamable HTTP, stateless (a new server and
 * transport per request, JSON answers), behind the guard like any route (the caller's role and
 * scope decide which tools it is offered and what they answer). GET and DELETE
 * (a server-sent stream, the end of a session) have no route: 405, as a stateless server says.
 */
export async function mcpRoutes(app: FastifyInstance, options: McpDomain): Promise<void> {
  // The SDK takes the JSON-RPC message as it came: bytes here (this scope only), parsed below.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    '*',
    { parseAs: 'buffer', bodyLimit: BODY_LIMIT_BYTES },
    (_request, body, done) => done(null, body),
  );

  app.post(
    '/mcp',
    {
      config: { access: 'viewer' },
      bodyLimit: BODY_LIMIT_BYTES,
      // A protocol endpoint, not an HTTP operation: the document's description names it.
      schema: {
        hide: true,
        summary: 'Model Context Protocol (Streamable HTTP, stateless): JSON-RPC messages',
      },
    },
    async (request, reply) => {
      const message = messageOf(request.body, request.headers['content-type']);
      if (message === undefined) return rpcError(reply, PARSE_ERROR, 'Parse error: Invalid JSON');
      // Each call's answer is bounded (mcp-pages.ts), and so is how many one request makes.
      if (Array.isArray(message) && message.length > MCP_LIMITS.BATCH_MAX) {
        const most = `at most ${MCP_LIMITS.BATCH_MAX} messages in a batch`;
        return rpcError(reply, INVALID_REQUEST, `Invalid Request: ${most}, not ${message.length}`);
      }
      const [{ boardMcpServer }, { StreamableHTTPServerTransport }] = await loadMcp();
      const server = boardMcpServer(options, request.actor, request.log);
      // No sessionIdGenerator: stateless, no session id and no session to keep.
      const transport = new StreamableHTTPServerTransport({ enableJsonResponse: true });
      reply.hijack();
      reply.raw.once('close', () => {
        void transport.close();
        void server.close();
      });
      try {
        await server.connect(transport);
        await transport.handleRequest(request.raw, reply.raw, message);
      } catch (error) {
        request.log.error({ err: error }, 'MCP request failed');
        if (!reply.raw.headersSent) {
          reply.raw.writeHead(500, { 'content-type': 'application/json' });
          reply.raw.end(
            JSON.stringify({
              jsonrpc: '2.0',
              error: { code: -32603, message: 'Internal error' },
              id: null,
            }),
          );
        } else {
          reply.raw.destroy();
        }
      }
    },
  );
}
