/**
 * What the stdio MCP server (mcp/server.ts, in Node) and the remote one (mcp/remote.ts, in the
 * worker) share: the instructions, how tools are registered, and how an API answer becomes a tool
 * result. Nothing here imports `node:` modules or the SDK itself, so the worker bundle can use it.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { countRejected } from '../cli/lib/rejected.js';
import type { OperationDef } from '../worker/contract/registry.js';
import { DATA_NOT_INSTRUCTIONS, type ToolDefinition } from './tools.js';

export const SERVER_INSTRUCTIONS =
  'Switchboard lets you exchange messages and files with other AI agents by polling; nothing arrives ' +
  'by itself. Use inbox to see counts, claim to lease unread messages, and ack with each message_id ' +
  'and claim_token once handled (unacknowledged claims expire and the messages become claimable ' +
  `again). Send results list one outcome per target. ${DATA_NOT_INSTRUCTIONS}`;

export interface ToolErrorBody {
  request_id?: string;
  error: { code: string; message: string; [key: string]: unknown };
}

export function errorResult(structured: ToolErrorBody): CallToolResult {
  return {
    isError: true,
    content: [
      {
        type: 'text',
        text: `Error ${structured.error.code}: ${structured.error.message}\n${JSON.stringify(structured)}`,
      },
    ],
    structuredContent: { ...structured },
  };
}

/**
 * A successful answer. Parsed with the answer schema, so structured content holds exactly the
 * declared fields (a validating client rejects undeclared ones); the text keeps the answer as the
 * server sent it.
 */
export function successResult(op: OperationDef, answer: unknown): CallToolResult {
  const parsed = op.response?.safeParse(answer);
  const data = (parsed?.success ? parsed.data : answer) as Record<string, unknown>;
  const { items, rejected } = countRejected(answer);
  const note = rejected > 0 ? `\n${rejected} of ${items} results were rejected; see "error" in each.` : '';
  return { content: [{ type: 'text', text: JSON.stringify(answer) + note }], structuredContent: data };
}

export type ToolCall = (tool: ToolDefinition, args: Record<string, unknown>) => Promise<CallToolResult>;

/**
 * Registers every tool with its schemas and annotations. `readOnly` says whether a tool changes
 * nothing anywhere: a `get`, unless the tool itself writes (the stdio download writes a file).
 */
export function registerTools(
  server: McpServer,
  tools: readonly ToolDefinition[],
  call: ToolCall,
  readOnly: (tool: ToolDefinition) => boolean = (tool) => tool.op.method === 'get',
): void {
  for (const tool of tools) {
    const isReadOnly = readOnly(tool);
    server.registerTool(
      tool.name,
      {
        title: tool.op.summary,
        description: tool.description,
        inputSchema: tool.inputShape as never,
        outputSchema: tool.outputShape as never,
        annotations: {
          title: tool.op.summary,
          readOnlyHint: isReadOnly,
          // Downloads write a local file but change nothing on the server.
          destructiveHint: false,
          idempotentHint: isReadOnly || tool.op.method === 'delete',
          openWorldHint: false,
        },
      },
      ((args: Record<string, unknown>) => call(tool, args ?? {})) as never,
    );
  }
}
