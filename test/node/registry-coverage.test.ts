/**
 * Every registry operation with `cli` set has exactly one CLI command, and every one with `mcp`
 * set exactly one MCP tool, whose schemas cover exactly the operation's fields. Run over the real
 * registry, so an operation added by any issue is checked the moment it is registered.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import Ajv from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../cli/program.js';
import { objectShape, operationFields } from '../../client/fields.js';
import { DownloadResult } from '../../client/files.js';
import { ERROR_CODES } from '../../core/contract/errors.js';
import { operationList } from '../../core/contract/index.js';
import type { OperationDef } from '../../core/contract/registry.js';
import { buildServer } from '../../mcp/server.js';
import { FILE_PATH_FIELD, OUT_PATH_FIELD, OVERWRITE_FIELD } from '../../mcp/tools.js';
import { fixtureOperations } from './fixtures.js';

const silent = { write: () => true } as unknown as NodeJS.WritableStream;
const io = { env: {}, stdin: process.stdin, stdout: silent, stderr: silent };

function cliOps(list: readonly OperationDef[]) {
  return list.filter((op) => op.cli);
}

describe.each([
  ['the real registry', operationList],
  ['the fixtures', fixtureOperations],
])('CLI commands for %s', (_name, list) => {
  const program = buildProgram(io, { operations: list });

  it('one command per operation with cli set, at exactly its command words', () => {
    expect(program.generated.map((g) => g.op.id).sort()).toEqual(
      cliOps(list)
        .map((op) => op.id)
        .sort(),
    );
    for (const entry of program.generated) {
      expect(entry.path).toBe((entry.op.cli as { command: string }).command);
      let node = program.command;
      for (const word of entry.path.split(' ')) {
        const next = node.commands.filter((c) => c.name() === word);
        expect(next, `${entry.path}: "${word}"`).toHaveLength(1);
        node = next[0] as typeof node;
      }
      expect(node).toBe(entry.command);
    }
    expect(new Set(program.generated.map((g) => g.path)).size).toBe(program.generated.length);
  });

  it('binds every input field exactly once, as a positional, an option or a secret', () => {
    for (const entry of program.generated) {
      const fields = operationFields(entry.op)
        .map((f) => f.name)
        .sort();
      expect(entry.bindings.map((b) => b.field.name).sort(), entry.op.id).toEqual(fields);
      const displays = entry.bindings.map((b) => b.display);
      expect(new Set(displays).size, entry.op.id).toBe(displays.length);
    }
  });

  it('generated commands do not collide with the hand-written ones', () => {
    const topWords = new Set(program.generated.map((g) => g.path.split(' ')[0]));
    for (const reserved of ['login', 'config', 'mcp', 'serve', 'help']) expect(topWords.has(reserved)).toBe(false);
  });
});

describe.each([
  ['the real registry', operationList],
  ['the fixtures', fixtureOperations],
])('MCP tools for %s, as an SDK client lists them', (_name, list) => {
  let client: Client;

  beforeAll(async () => {
    const server = await buildServer({ env: { SWITCHBOARD_CONFIG: '/nonexistent/config.json' }, operations: list });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    client = new Client({ name: 'coverage-test', version: '1.0.0' });
    await client.connect(clientSide);
  });
  afterAll(async () => {
    await client.close();
  });

  it('one tool per operation with mcp set, names unique, agent operations only', async () => {
    const { tools } = await client.listTools();
    const expected = list.filter((op) => op.mcp).map((op) => (op.mcp as { tool: string }).tool);
    expect(tools.map((t) => t.name).sort()).toEqual([...expected].sort());
    expect(new Set(expected).size).toBe(expected.length);
    for (const op of list.filter((o) => o.mcp)) expect(op.role, op.id).toBe('agent');
  });

  it('input schema = exactly params+query+body fields (+ file_path / out_path), required alike', async () => {
    const { tools } = await client.listTools();
    for (const op of list.filter((o) => o.mcp)) {
      const tool = tools.find((t) => t.name === (op.mcp as { tool: string }).tool);
      expect(tool, op.id).toBeDefined();
      const fields = operationFields(op);
      const extra = [
        ...(op.upload ? [FILE_PATH_FIELD] : []),
        ...(op.rawResponse ? [OUT_PATH_FIELD, OVERWRITE_FIELD] : []),
      ];
      expect(Object.keys(tool?.inputSchema.properties ?? {}).sort(), op.id).toEqual(
        [...fields.map((f) => f.name), ...extra].sort(),
      );
      const required = [
        ...fields.filter((f) => f.required).map((f) => f.name),
        ...(op.rawResponse ? [OUT_PATH_FIELD] : []),
      ];
      expect([...(tool?.inputSchema.required ?? [])].sort(), op.id).toEqual(required.sort());
      for (const field of fields.filter((f) => f.description)) {
        const property = tool?.inputSchema.properties?.[field.name] as { description?: string };
        expect(property.description, `${op.id}.${field.name}`).toBe(field.description);
      }
    }
  });

  it('output schema = the answer fields, required as declared, or the error object; {} fits neither', async () => {
    const { tools } = await client.listTools();
    const ajv = new Ajv({ strict: false, validateFormats: false });
    for (const op of list.filter((o) => o.mcp)) {
      const tool = tools.find((t) => t.name === (op.mcp as { tool: string }).tool);
      const shape = op.rawResponse
        ? { ...(objectShape(op.params) ?? {}), ...DownloadResult.shape }
        : (objectShape(op.response) ?? {});
      const [success, failure] = (tool?.outputSchema?.anyOf ?? []) as { properties?: object; required?: string[] }[];
      expect(Object.keys(success?.properties ?? {}).sort(), op.id).toEqual(Object.keys(shape).sort());
      const required = Object.entries(shape).flatMap(([name, schema]) =>
        schema.safeParse(undefined).success ? [] : [name],
      );
      expect([...(success?.required ?? [])].sort(), op.id).toEqual(required.sort());
      expect(failure?.required, op.id).toEqual(['error']);
      expect(ajv.validate(tool?.outputSchema ?? {}, {}), `${op.id}: {} satisfies the output schema`).toBe(false);
    }
  });

  it('every tool has an input and an output schema, and every input field a description', async () => {
    const { tools } = await client.listTools();
    for (const tool of tools) {
      expect(tool.inputSchema.type, tool.name).toBe('object');
      expect(tool.outputSchema?.type, tool.name).toBe('object');
      expect(tool.description, tool.name).toBeTruthy();
      for (const [name, property] of Object.entries(tool.inputSchema.properties ?? {})) {
        if (list !== operationList) continue;
        const text = (property as { description?: string }).description;
        expect(text?.trim().length, `${tool.name}.${name} has no description`).toBeGreaterThan(5);
      }
    }
  });

  it('the data-not-instructions warning is said once in the instructions and on peer-content tools', async () => {
    const { tools } = await client.listTools();
    const instructions = client.getInstructions() ?? '';
    expect(instructions).toMatch(/data, never as instructions/);
    expect(instructions).toMatch(/No tool acknowledges anything by itself/);
    for (const op of list.filter((o) => o.mcp)) {
      const spec = op.mcp as { tool: string; peerContent?: boolean };
      const tool = tools.find((t) => t.name === spec.tool);
      expect(/data, never as instructions/.test(tool?.description ?? ''), spec.tool).toBe(!!spec.peerContent);
    }
  });

  it('annotations: only a JSON get is read-only; a download writes a local file', async () => {
    const { tools } = await client.listTools();
    for (const op of list.filter((o) => o.mcp)) {
      const tool = tools.find((t) => t.name === (op.mcp as { tool: string }).tool);
      const readOnly = op.method === 'get' && !op.rawResponse;
      expect(tool?.annotations?.readOnlyHint, op.id).toBe(readOnly);
      if (readOnly) expect(tool?.annotations?.destructiveHint, op.id).toBe(false);
      if (op.rawResponse) {
        expect(tool?.annotations, op.id).toMatchObject({ readOnlyHint: false, idempotentHint: false });
      }
    }
  });
});

describe('MCP text of the real registry', () => {
  let client: Client;
  beforeAll(async () => {
    const server = await buildServer({ env: { SWITCHBOARD_CONFIG: '/nonexistent/config.json' } });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    client = new Client({ name: 'coverage-test', version: '1.0.0' });
    await client.connect(clientSide);
  });
  afterAll(async () => {
    await client.close();
  });

  /** Every snake_case name in a text must be a tool, a field of some tool, or an error code. */
  async function unknownNames(text: string): Promise<string[]> {
    const { tools } = await client.listTools();
    const known = new Set<string>([
      ...tools.map((t) => t.name),
      ...ERROR_CODES,
      'not_configured',
      'unreachable',
      'local_file_error',
      'path_not_allowed',
      // The error body's members, described once in the instructions.
      'request_id',
      'retry_after_ms',
    ]);
    const walk = (schema: unknown) => {
      if (typeof schema !== 'object' || schema === null) return;
      const properties = (schema as { properties?: Record<string, unknown> }).properties ?? {};
      for (const [name, value] of Object.entries(properties)) {
        known.add(name);
        walk(value);
      }
      for (const value of (schema as { enum?: unknown[] }).enum ?? []) if (typeof value === 'string') known.add(value);
      for (const value of Object.values(schema)) if (typeof value === 'object') walk(value);
    };
    for (const tool of tools) {
      walk(tool.inputSchema);
      walk(tool.outputSchema);
    }
    // The settings an agent reads with get_limits are named in descriptions too.
    const limits = tools.find((t) => t.name === 'get_limits')?.outputSchema;
    walk(limits);
    return [...text.matchAll(/\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b/g)].map((m) => m[0]).filter((w) => !known.has(w));
  }

  it('the instructions name tools by their real names, and every name they use exists', async () => {
    const instructions = client.getInstructions() ?? '';
    for (const name of ['check_inbox', 'claim_messages', 'ack_messages', 'send_message']) {
      expect(instructions).toContain(name);
    }
    expect(await unknownNames(instructions)).toEqual([]);
    // The old text named tools by CLI words ("Use inbox …, claim …, and ack …").
    expect(instructions).not.toMatch(/\b(?:Use inbox|call ack)\b/);
  });

  it('tool descriptions use tool terms: no HTTP or CLI wording, no unknown names', async () => {
    const { tools } = await client.listTools();
    for (const tool of tools) {
      const text = JSON.stringify(tool);
      expect(text, tool.name).not.toMatch(/multipart|form-data|X-Content-Type-Options|Content-Disposition|--[a-z]/);
      expect(await unknownNames(tool.description ?? ''), tool.name).toEqual([]);
    }
  });
});

describe('docs/clients.md', () => {
  it('lists exactly the MCP tools of the registry', () => {
    const doc = readFileSync(join(import.meta.dirname, '../../docs/clients.md'), 'utf8');
    const table = /<!-- mcp-tools:start -->([\s\S]*?)<!-- mcp-tools:end -->/.exec(doc)?.[1] ?? '';
    const listed = [...table.matchAll(/^\| `([a-z_]+)` /gm)].map((m) => m[1]);
    const tools = operationList.filter((op) => op.mcp).map((op) => (op.mcp as { tool: string }).tool);
    expect([...listed].sort()).toEqual([...tools].sort());
  });
});
