/**
 * One MCP server per request (stateless: no session outlives its request), knowing who asks.
 * tools/list gives the tools the caller's Access may use (the matrix, through `refusal`);
 * tools/call authorises as the route would, then makes the one service call. A refused or
 * failed call is a tool error carrying the API's {error:{code,message,field}}.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import pkg from '../../../package.json' with { type: 'json' };
import { storageFailure } from '../../db/storage';
import { errorBody } from '../../http/errors';
import { AppError, describeError } from '../../lib/errors';
import type { Logger } from '../../lib/log';
import { type Access, authorize, refusal } from '../access/public';
import { jsonSchemaOf, outputOf, readInput } from './input';
import { type McpDeps, TOOLS, type Tool } from './tools';

export type McpServerDeps = McpDeps & { log: Logger };

function toolResult(json: object, isError = false): CallToolResult {
  return {
    content: [{ type: 'text', text: JSON.stringify(json) }],
    structuredContent: json as Record<string, unknown>,
    ...(isError && { isError }),
  };
}

async function call(deps: McpServerDeps, access: Access, tool: Tool, args: Record<string, unknown> | undefined) {
  try {
    authorize(access, tool.action);
    const result = await tool.run(deps, access, readInput(tool.input, args));
    return toolResult(outputOf(tool.output, result));
  } catch (err) {
    if (err instanceof AppError) return toolResult(errorBody(err.code, err.message, err.field), true);
    // As the API's error mapper: a database that cannot be written is said so; anything else
    // is logged and answered with a generic error that leaks nothing.
    const storage = storageFailure(err);
    if (storage !== null) {
      deps.log.error(`storage unavailable in MCP tool ${tool.name}: ${storage}`);
      return toolResult(
        errorBody('storage_unavailable', 'The database cannot be written right now; try again later'),
        true,
      );
    }
    deps.log.error(`unhandled error in MCP tool ${tool.name}: ${describeError(err)}`);
    return toolResult(errorBody('internal_error', 'Something went wrong on our side'), true);
  }
}

export function mcpServer(deps: McpServerDeps, access: Access): Server {
  const server = new Server({ name: 'slink', version: pkg.version }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: TOOLS.filter((tool) => refusal(access, tool.action) === null).map((tool) => ({
      name: tool.name,
      description: tool.description,
      inputSchema: jsonSchemaOf(tool.input),
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, ({ params }) => {
    const tool = TOOLS.find((candidate) => candidate.name === params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${params.name}`);
    return call(deps, access, tool, params.arguments);
  });
  return server;
}
