/**
 * A synthetic operation registry exercising every field kind the generators handle, so the
 * parsing rules are tested even before a real operation uses each of them.
 */
import { Readable } from 'node:stream';
import { z } from '@hono/zod-openapi';
import { buildProgram } from '../../cli/program.js';
import type { InvokeRequest } from '../../client/invoke.js';
import { defineOperation, type OperationDef } from '../../core/contract/registry.js';

export const kitchenSink = defineOperation({
  id: 'kitchenSink',
  method: 'post',
  path: '/things/{thing_id}',
  role: 'agent',
  summary: 'Every kind of field',
  tags: ['test'],
  params: z.object({ thing_id: z.string().regex(/^thg_\w+$/) }),
  query: z.object({ page: z.coerce.number().int().min(1).optional() }),
  body: z.object({
    to_agent_ids: z.array(z.string().min(1)).min(1).openapi({ description: 'Targets.' }),
    text: z.string(),
    count: z.number().int().optional(),
    urgent: z.boolean().optional(),
    order: z.enum(['oldest', 'newest']).optional(),
    meta: z.object({ a: z.number() }).optional(),
  }),
  upload: true,
  response: z.object({ request_id: z.string(), results: z.array(z.object({ status: z.string() })) }),
  errors: [],
  cli: {
    command: 'things poke',
    positionals: ['thing_id', 'text'],
    stdinField: 'text',
    optionNames: { to_agent_ids: 'to' },
  },
  mcp: { tool: 'poke_thing' },
});

export const pairs = defineOperation({
  id: 'pairs',
  method: 'post',
  path: '/pairs',
  role: 'agent',
  summary: 'An array of objects as positional words',
  tags: ['test'],
  body: z.object({ acks: z.array(z.object({ message_id: z.string(), claim_token: z.string() })).min(1) }),
  response: z.object({ results: z.array(z.object({ message_id: z.string(), status: z.string() })) }),
  errors: [],
  cli: { command: 'pairs', positionals: ['acks'] },
  mcp: { tool: 'pairs' },
});

export const secret = defineOperation({
  id: 'secret',
  method: 'post',
  path: '/secret',
  role: 'public',
  summary: 'A secret field',
  tags: ['test'],
  body: z.object({ username: z.string(), password: z.string() }),
  response: z.object({ ok: z.boolean() }),
  errors: [],
  cli: { command: 'secret', secretFields: ['password'] },
  mcp: false,
});

export const fetchBytes = defineOperation({
  id: 'fetchBytes',
  method: 'get',
  path: '/blobs/{blob_id}/content',
  role: 'agent',
  summary: 'Raw bytes',
  tags: ['test'],
  params: z.object({ blob_id: z.string() }),
  rawResponse: { mediaType: 'application/octet-stream', description: 'bytes' },
  errors: [],
  cli: { command: 'fetch', positionals: ['blob_id'] },
  mcp: { tool: 'fetch_bytes' },
});

export const fixtureOperations: readonly OperationDef[] = [kitchenSink, pairs, secret, fetchBytes];

function sink(write: (text: string) => void): NodeJS.WritableStream {
  return {
    write: (text: string) => {
      write(text);
      return true;
    },
  } as unknown as NodeJS.WritableStream;
}

export interface Captured {
  code: number;
  requests: InvokeRequest[];
  stdout: string;
  stderr: string;
}

/** Runs the generated CLI over the fixtures; `execute` records instead of calling a server. */
export async function parse(argv: string[], options: { stdin?: string; tty?: boolean } = {}): Promise<Captured> {
  const { runCli } = await import('../../cli/program.js');
  const requests: InvokeRequest[] = [];
  let stdout = '';
  let stderr = '';
  const stdin = Readable.from(options.stdin === undefined ? [] : [Buffer.from(options.stdin)]) as Readable & {
    isTTY?: boolean;
  };
  stdin.isTTY = options.tty ?? false;
  const io = {
    env: { SWITCHBOARD_CONFIG: '/nonexistent/config.json' },
    stdin,
    stdout: sink((text) => {
      stdout += text;
    }),
    stderr: sink((text) => {
      stderr += text;
    }),
  };
  const program = buildProgram(io, {
    operations: fixtureOperations,
    execute: async (request) => {
      requests.push(request);
    },
  });
  const code = await runCli(program, ['node', 'switchboard', ...argv], io);
  return { code, requests, stdout, stderr };
}
