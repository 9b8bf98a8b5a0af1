/**
 * POST /mcp on the app host: the Model Context Protocol over Streamable HTTP, stateless (a new
 * server and transport per request, JSON answers, no session). Its edge is the API's: a bearer
 * key only (never a session cookie), the same verification and rate limit per key, and an Origin
 * other than the app host's refused (a page on another site reaching a local server by DNS
 * rebinding); a request without Origin is a non-browser client.
 */
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { authenticateKey, type GuardDeps } from '../../http/auth';
import { clientAddress, pathOf, type ServerLike } from '../../http/client';
import { errorResponse } from '../../http/errors';
import { MAX_BODY_BYTES } from '../../http/json-body';
import { countHit, type RateLimit } from '../../http/rate-limit';
import { AppError } from '../../lib/errors';
import { accessOf } from '../access/public';
import { type McpServerDeps, mcpServer } from './server';

export const MCP_PATH = '/mcp';

function foreignOrigin(): AppError {
  return new AppError('csrf_rejected', 'An MCP request from a web page must come from the app host (Origin)');
}

/** Stateless: no stream to open (GET) and no session to end (DELETE). */
function methodNotAllowed(): Response {
  return Response.json(
    { jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: POST only (stateless server)' }, id: null },
    { status: 405, headers: { allow: 'POST' } },
  );
}

async function answer(
  deps: McpServerDeps & GuardDeps,
  limiter: RateLimit,
  request: Request,
  server: ServerLike | null,
) {
  const origin = request.headers.get('origin');
  if (origin !== null && origin !== deps.config.appHost) return errorResponse(foreignOrigin());
  const principal = await authenticateKey(deps, request);
  const identity =
    principal instanceof AppError
      ? `ip:${clientAddress(request, server, deps.config.trustProxy) ?? 'unknown'}`
      : `key:${principal.key.id}`;
  const { headers, refused: limited } = await countHit(limiter, identity);
  if (limited) return limited;
  if (principal instanceof AppError) return errorResponse(principal, headers);
  if (request.method !== 'POST') return methodNotAllowed();
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
    maxRequestBodySize: MAX_BODY_BYTES,
  });
  const mcp = mcpServer(deps, accessOf(principal, 'mcp'));
  await mcp.connect(transport);
  try {
    const response = await transport.handleRequest(request);
    for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
    return response;
  } finally {
    await mcp.close();
  }
}

/**
 * The /mcp answerer for the app's first hook (app.ts), before any body parsing: the transport
 * reads the body itself (JSON-RPC's own parse errors, its size bound). Undefined for other paths.
 */
export function createMcpEdge(deps: McpServerDeps & GuardDeps, limiter: RateLimit) {
  return ({ request, server }: { request: Request; server: ServerLike | null }): Promise<Response> | undefined =>
    pathOf(request.url) === MCP_PATH ? answer(deps, limiter, request, server) : undefined;
}
