/**
 * Calls one registry operation with flat, field-keyed input: the one path shared by every CLI
 * command and every MCP tool. Input is checked with the operation's own zod schemas first, so a
 * bad value is a local error and nothing is sent; the connection comes from the profile.
 */
import type { z } from '@hono/zod-openapi';
import type { OperationDef } from '../core/contract/registry.js';
import { usageError } from './errors.js';
import { type FieldInfo, operationFields, type SplitInput, splitInput } from './fields.js';
import { type FileAccess, userFiles } from './files.js';
import { countRejected } from './rejected.js';
import { type InvokeContext, type Outcome, sendOperation } from './send.js';

export type { InvokeContext, Outcome };
// Lives in a file without `node:` imports, shared with the worker's remote MCP server.
export { countRejected };

export interface InvokeRequest {
  op: OperationDef;
  /** Field name -> value, for params, query and body alike. */
  values: Record<string, unknown>;
  filePath?: string;
  outPath?: string;
  overwrite?: boolean;
  /** How local paths are opened: the MCP server confines them; the CLI uses them as given. */
  files?: FileAccess;
}

function validatePart(schema: z.ZodType | undefined, values: Record<string, unknown>): Record<string, unknown> {
  if (!schema) return values;
  const result = schema.safeParse(values);
  if (result.success) return result.data as Record<string, unknown>;
  const issue = result.error.issues[0];
  const field = issue?.path.map(String).join('.') || undefined;
  const top = issue?.path[0];
  const missing = top !== undefined && values[String(top)] === undefined && issue?.path.length === 1;
  const detail = missing ? 'is required' : (issue?.message ?? 'is invalid');
  throw usageError(field ? `${field}: ${detail}` : detail, field, detail);
}

export function validateInput(op: OperationDef, fields: readonly FieldInfo[], values: Record<string, unknown>) {
  const split = splitInput(fields, values);
  const checked: SplitInput = {
    params: validatePart(op.params, split.params),
    query: validatePart(op.query, split.query),
    body: validatePart(op.body, split.body),
  };
  return checked;
}

export async function invokeOperation(request: InvokeRequest, context: InvokeContext): Promise<Outcome> {
  const { op } = request;
  const input = validateInput(op, operationFields(op), request.values);
  if (request.filePath !== undefined && !op.upload) throw usageError(`${op.id} does not take a file`);
  let download: { outPath: string; overwrite: boolean } | undefined;
  if (op.rawResponse) {
    if (!request.outPath) throw usageError('out: give the path to write the bytes to', 'out', 'is required');
    download = {
      outPath: (request.files ?? userFiles).checkDestination(request.outPath, request.overwrite ?? false),
      overwrite: !!request.overwrite,
    };
  }

  return sendOperation(
    {
      op,
      input,
      ...(request.filePath !== undefined && { filePath: request.filePath }),
      ...(download && { download }),
      ...(request.files && { files: request.files }),
    },
    context,
  );
}
