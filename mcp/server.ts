/**
 * The Switchboard MCP server: tools generated from the registry (mcp/tools.ts), each call one
 * HTTP request through the same client as the CLI. It holds no state between calls; the profile
 * is re-read each call, so `switchboard login` takes effect without a restart.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Env } from '../client/config.js';
import { LocalError } from '../client/errors.js';
import { type InvokeRequest, invokeOperation } from '../client/invoke.js';
import { operationList } from '../core/contract/index.js';
import type { OperationDef } from '../core/contract/registry.js';
import { VERSION } from '../core/version.js';
import { errorResult, registerTools, serverInstructions, successResult } from './core.js';
import { confinedFiles, type FilePolicy, filePolicy } from './file-access.js';
import { FILE_PATH_FIELD, OUT_PATH_FIELD, OVERWRITE_FIELD, toolDefinitions } from './tools.js';

export interface BuildServerOptions {
  /** `--profile`; otherwise SWITCHBOARD_PROFILE or the config file's current profile. */
  profile?: string;
  env?: Env;
  operations?: readonly OperationDef[];
  /** Where file_path/out_path may point (default: from --allow-dir, the env, or the cwd). */
  files?: FilePolicy;
}

// Shared with the remote server (mcp/remote.ts); exported here as before.
export { serverInstructions };

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
    return successResult(op, outcome.data);
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
  registerTools(server, toolDefinitions(operations), (tool, args) => callTool(tool.op, args, context), {
    ListToolsRequestSchema,
  });
  return server;
}
