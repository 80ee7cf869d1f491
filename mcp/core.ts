/**
 * What the stdio MCP server (mcp/server.ts, in Node) and the remote one (mcp/remote.ts, in the
 * worker) share: the instructions, how tools are registered, and how an API answer becomes a tool
 * result. Nothing here imports `node:` modules or the SDK itself (only its types; the SDK values it
 * needs are passed in), so the worker bundle can use it and the CLI loads the SDK only for `mcp`.
 */

import { z } from '@hono/zod-openapi';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { countRejected } from '../client/rejected.js';
import type { ClientErrorBody } from '../core/contract/models.js';
import type { OperationDef } from '../core/contract/registry.js';
import { DATA_NOT_INSTRUCTIONS, listedTool, type ToolDefinition } from './tools.js';

export interface InstructionOptions {
  /**
   * The remote server (mcp/remote.ts): files travel in the call, not through local paths, and no
   * local error (not_configured, local_file_error, …) can happen. `cap` says how large they may be.
   */
  inlineFiles?: { field: string; cap: string };
}

/**
 * What every session should know before its first call. Tools are named as the client lists them,
 * from the registry; a registry without the messaging tools (test fixtures) gets the general part.
 */
export function serverInstructions(operations: readonly OperationDef[], options: InstructionOptions = {}): string {
  const names = new Map(operations.flatMap((op) => (op.mcp ? [[op.id, op.mcp.tool] as const] : [])));
  const ids = [
    'getInbox',
    'claimMessages',
    'ackMessages',
    'sendDirect',
    'listDirectory',
    'sendGroupMessage',
    'extendClaims',
    'releaseClaims',
  ];
  const [inbox, claim, ack, send, directory, sendGroup, extend, release] = ids.map((id) => names.get(id));
  const { inlineFiles } = options;
  const general =
    'Switchboard lets you exchange messages and files with other AI agents by polling; nothing arrives by itself. ' +
    'No tool acknowledges anything by itself. A failed call answers isError with structured content ' +
    '{request_id, error:{code, message, field?, target?, limit?, retry_after_ms?}}: the API error codes' +
    (inlineFiles ? '. ' : ', or not_configured, unreachable, local_file_error, path_not_allowed before any request. ');
  const flow =
    inbox && claim && ack && send && directory && sendGroup && extend && release
      ? `${inbox} shows counts, ${claim} leases unread messages with a claim_token each, and ${ack} marks them ` +
        `read with each message_id and claim_token: ACK when you have read a message; ${extend} the lease if you ` +
        `need longer before you can, and ${release} hands back one you will not read now. An unacknowledged claim ` +
        `expires and the message becomes claimable again. Send with ${send} (agent IDs from ${directory}) or ${sendGroup}; results list ` +
        'one outcome per target. '
      : '';
  let files = '';
  if (inlineFiles) {
    const uploads = operations.flatMap((op) => (op.mcp && op.upload ? [op.mcp.tool] : []));
    const downloads = operations.flatMap((op) => (op.mcp && op.rawResponse ? [op.mcp.tool] : []));
    const parts: string[] = [];
    if (uploads.length) {
      parts.push(
        `${uploads.join(' and ')} take ${inlineFiles.field}: {filename, media_type?, content_base64} to attach one file`,
      );
    }
    if (downloads.length) parts.push(`${downloads.join(' and ')} returns its bytes as content_base64`);
    if (parts.length) {
      files =
        `Files travel inside the call, never through local paths: ${parts.join('; ')}; ${inlineFiles.cap} either ` +
        'way (payload_too_large beyond; larger files need the switchboard CLI). ';
    }
  }
  return general + flow + files + DATA_NOT_INSTRUCTIONS;
}

/**
 * A tool's error result: the API's error body as it came, or one made up here for a refusal that
 * never reached the API (no request_id, no settings_revision; a local code such as path_not_allowed).
 */
export type ToolErrorBody = Partial<Pick<ClientErrorBody, 'request_id'>> & Pick<ClientErrorBody, 'error'>;

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

/** Results whose structured content successResult has already checked against the tool's output schema. */
const checkedOutputs = new WeakSet<CallToolResult>();

/**
 * A successful answer. Parsed with the answer schema, so structured content holds exactly the
 * declared fields (a validating client rejects undeclared ones); the text keeps the answer as the
 * server sent it (`text`, when the caller has it: the same JSON the answer was parsed from).
 * That parse is also the output check the tool makes (registerTools): the answer schema is the
 * tool's output shape (tools.ts outputShapeFor), so a result it accepted is not checked again.
 */
export function successResult(op: OperationDef, answer: unknown, text?: string): CallToolResult {
  const parsed = op.response?.safeParse(answer);
  const data = (parsed?.success ? parsed.data : answer) as Record<string, unknown>;
  const { items, rejected } = countRejected(answer);
  const note = rejected > 0 ? `\n${rejected} of ${items} results were rejected; see "error" in each.` : '';
  const result: CallToolResult = {
    content: [{ type: 'text', text: (text ?? JSON.stringify(answer)) + note }],
    structuredContent: data,
  };
  if (parsed?.success && !op.rawResponse) checkedOutputs.add(result);
  return result;
}

/** The SDK's message for an output that does not fit (McpServer validateToolOutput, getParseErrorMessage). */
function outputProblem(tool: ToolDefinition, result: CallToolResult): string | undefined {
  if (result.isError || checkedOutputs.has(result)) return undefined;
  const prefix = `MCP error -32602: Output validation error: `;
  if (!result.structuredContent) {
    return `${prefix}Tool ${tool.name} has an output schema but no structured content was provided`;
  }
  let schema = outputSchemas.get(tool);
  if (!schema) {
    schema = z.object(tool.outputShape);
    outputSchemas.set(tool, schema);
  }
  const parsed = schema.safeParse(result.structuredContent);
  if (parsed.success) return undefined;
  const issues = parsed.error.issues.map((issue) =>
    issue.path.length ? `${issue.message} at ${dotPath(issue.path)}` : issue.message,
  );
  return `${prefix}Invalid structured content for tool ${tool.name}: ${issues.join('\n')}`;
}

const outputSchemas = new WeakMap<ToolDefinition, z.ZodType>();

/** A zod issue path as the SDK writes it: `a.b[0].c`. */
function dotPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((at, segment, index) => {
    if (index === 0) return String(segment);
    return typeof segment === 'number' ? `${at}[${segment}]` : `${at}.${String(segment)}`;
  }, '');
}

/** One tool call; `requestId` is the JSON-RPC ID the server handles it under (the remote server's calls find their caller by it). */
export type ToolCall = (
  tool: ToolDefinition,
  args: Record<string, unknown>,
  requestId: string | number,
) => Promise<CallToolResult>;

/** The SDK's request schema that `registerTools` replaces the handler of (passed in: see the file comment). */
export interface ListToolsSchema {
  ListToolsRequestSchema: typeof ListToolsRequestSchema;
}

// A listing is pure data of its tools: written once per tool set (per process, or per isolate).
const listings = new WeakMap<readonly ToolDefinition[], { tools: Record<string, unknown>[] }>();

/**
 * Registers every tool with its title, schemas and annotations (mcp/tools.ts), and lists them
 * leaner than the SDK would. The SDK validates calls with the zod schemas registered here but
 * lists each schema in full (a 400-character date-time pattern per timestamp, …); the listing is
 * replaced by the same schemas written leaner (mcp/tools.ts, toolJsonSchema). The SDK documents
 * that setRequestHandler replaces the previous handler; the list is static, so it is built once.
 */
export function registerTools(
  server: McpServer,
  tools: readonly ToolDefinition[],
  call: ToolCall,
  { ListToolsRequestSchema }: ListToolsSchema,
): void {
  for (const tool of tools) {
    // No outputSchema for the SDK: it would only check each result against it (the listing below
    // is ours), and successResult has already done that parse for every API answer. The results it
    // did not make (downloads, in their own shape) are checked here, with the SDK's message.
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: tool.inputShape as never,
        annotations: tool.annotations,
      },
      (async (args: Record<string, unknown>, extra: { requestId: string | number }) => {
        const result = await call(tool, args ?? {}, extra.requestId);
        const problem = outputProblem(tool, result);
        return problem ? { content: [{ type: 'text', text: problem }], isError: true } : result;
      }) as never,
    );
  }
  // The SDK announces `tools.listChanged` as soon as a tool is registered; this list never changes
  // while a server runs, and a client that trusts the flag would wait for notifications that never come.
  server.server.registerCapabilities({ tools: { listChanged: false } });
  server.server.setRequestHandler(ListToolsRequestSchema, () => {
    let listing = listings.get(tools);
    if (!listing) {
      listing = { tools: tools.map(listedTool) };
      listings.set(tools, listing);
    }
    return listing as never;
  });
}
