/** The MCP module's face: the tool names (docs and tests read them). Its route is in index.ts, which app.ts mounts. */
import { TOOLS } from './tools';

export const MCP_TOOL_NAMES: readonly string[] = TOOLS.map((tool) => tool.name);
