/**
 * The Switchboard MCP server: tools generated from the registry (mcp/tools.ts), each call one
 * HTTP request through the same client as the CLI. It holds no state between calls; the profile
 * is re-read each call, so `switchboard login` takes effect without a restart.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Env } from '../cli/lib/config.js';
import { LocalError } from '../cli/lib/errors.js';
import { type InvokeRequest, invokeOperation } from '../cli/lib/invoke.js';
import { VERSION } from '../cli/lib/version.js';
import { operationList } from '../worker/contract/index.js';
import type { OperationDef } from '../worker/contract/registry.js';
import { confinedFiles, type FilePolicy, filePolicy } from './file-access.js';
import {
  DATA_NOT_INSTRUCTIONS,
  FILE_PATH_FIELD,
  listedTool,
  OUT_PATH_FIELD,
  OVERWRITE_FIELD,
  toolDefinitions,
} from './tools.js';

export interface BuildServerOptions {
  /** `--profile`; otherwise SWITCHBOARD_PROFILE or the config file's current profile. */
  profile?: string;
  env?: Env;
  operations?: readonly OperationDef[];
  /** Where file_path/out_path may point (default: from --allow-dir, the env, or the cwd). */
  files?: FilePolicy;
}

/**
 * What every session should know before its first call. Tools are named as the client lists them,
 * from the registry; a registry without the messaging tools (test fixtures) gets the general part.
 */
export function serverInstructions(operations: readonly OperationDef[] = operationList): string {
  const names = new Map(operations.flatMap((op) => (op.mcp ? [[op.id, op.mcp.tool] as const] : [])));
  const ids = ['getInbox', 'claimMessages', 'ackMessages', 'sendDirect', 'listDirectory', 'sendGroupMessage'];
  const [inbox, claim, ack, send, directory, sendGroup] = ids.map((id) => names.get(id));
  const general =
    'Switchboard lets you exchange messages and files with other AI agents by polling; nothing arrives by itself. ' +
    'No tool acknowledges anything by itself. A failed call answers isError with structured content ' +
    '{request_id, error:{code, message, field?, target?, limit?, retry_after_ms?}}: the API error codes, or ' +
    'not_configured, unreachable, local_file_error, path_not_allowed before any request. ';
  const flow =
    inbox && claim && ack && send && directory && sendGroup
      ? `${inbox} shows counts, ${claim} leases unread messages with a claim_token each, and ${ack} marks them ` +
        'read with each message_id and claim_token once handled; an unacknowledged claim expires and the message ' +
        `becomes claimable again. Send with ${send} (agent IDs from ${directory}) or ${sendGroup}; results list ` +
        'one outcome per target. '
      : '';
  return general + flow + DATA_NOT_INSTRUCTIONS;
}

function errorResult(structured: { request_id?: string; error: { code: string; message: string } }): CallToolResult {
  return {
    isError: true,
    content: [
      {
        type: 'text',
        text: `Error ${structured.error.code}: ${structured.error.message}\n${JSON.stringify(structured)}`,
      },
    ],
    structuredContent: structured,
  };
}

export async function callTool(
  op: OperationDef,
  args: Record<string, unknown>,
  context: { profile?: string; env: Env; files: FilePolicy },
): Promise<CallToolResult> {
  const { [FILE_PATH_FIELD]: filePath, [OUT_PATH_FIELD]: outPath, [OVERWRITE_FIELD]: overwrite, ...values } = args;
  // Every local path of a tool call goes through the confined access; the upload's descriptor
  // stays open until the request is done.
  const files = confinedFiles(context.files);
  const request: InvokeRequest = { op, values, files };
  if (op.upload && typeof filePath === 'string') request.filePath = filePath;
  if (op.rawResponse) {
    if (typeof outPath === 'string') request.outPath = outPath;
    request.overwrite = overwrite === true;
  }
  try {
    const outcome = await invokeOperation(request, context);
    if (!outcome.ok) return errorResult(outcome.error);
    // Parsed with the answer schema, so structured content holds exactly the declared fields (a
    // validating client rejects undeclared ones); the text keeps the answer as the server sent it.
    const parsed = op.response?.safeParse(outcome.data);
    const data = (parsed?.success ? parsed.data : outcome.data) as Record<string, unknown>;
    const note =
      outcome.rejected > 0
        ? `\n${outcome.rejected} of ${outcome.items} results were rejected; see "error" in each.`
        : '';
    return { content: [{ type: 'text', text: JSON.stringify(outcome.data) + note }], structuredContent: data };
  } catch (error) {
    if (error instanceof LocalError) {
      return errorResult({
        error: { code: error.code, message: error.message, ...(error.field && { field: error.field }) },
      });
    }
    throw error;
  } finally {
    files.release();
  }
}

/**
 * The SDK is loaded here rather than imported at the top so that it stays out of the start-up of
 * every other CLI command (the bundle puts dynamically imported code in chunks of its own).
 */
export async function buildServer(options: BuildServerOptions = {}): Promise<McpServer> {
  const { McpServer } = await import('@modelcontextprotocol/sdk/server/mcp.js');
  const env = options.env ?? process.env;
  const files = options.files ?? filePolicy({ env });
  const context = { ...(options.profile && { profile: options.profile }), env, files };
  const { ListToolsRequestSchema } = await import('@modelcontextprotocol/sdk/types.js');
  const operations = options.operations ?? operationList;
  const server = new McpServer(
    { name: 'switchboard', title: 'Switchboard', version: VERSION },
    { instructions: serverInstructions(operations) },
  );
  const tools = toolDefinitions(operations);
  for (const tool of tools) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: tool.inputShape as never,
        outputSchema: tool.outputShape as never,
        annotations: tool.annotations,
      },
      ((args: Record<string, unknown>) => callTool(tool.op, args ?? {}, context)) as never,
    );
  }
  // The SDK validates calls with the zod schemas registered above but lists each schema in full
  // (a 400-character date-time pattern per timestamp, …); the listing is replaced by the same
  // schemas written leaner (mcp/tools.ts, toolJsonSchema). The SDK documents that
  // setRequestHandler replaces the previous handler; the list is static, so it is built once.
  const listing = { tools: tools.map(listedTool) };
  server.server.setRequestHandler(ListToolsRequestSchema, () => listing as never);
  return server;
}
