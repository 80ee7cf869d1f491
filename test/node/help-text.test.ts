/**
 * The CLI and MCP help text of every input field is the contract's own `.openapi({ description })`
 * text, read the way the OpenAPI document reads it. Guards the hazard of a second copy of
 * @asteasolutions/zod-to-openapi (its metadata registry would be empty: every help text would
 * vanish without an error), and checks the zod introspection of client/fields.ts, which uses only
 * zod's public API, on each kind of schema the generator knows.
 */
import { z } from '@hono/zod-openapi';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../cli/program.js';
import { describeSchema, fieldInfo, objectShape, operationFields, unwrap } from '../../client/fields.js';
import { operationList } from '../../core/contract/index.js';
import type { OperationDef } from '../../core/contract/registry.js';
import { buildServer } from '../../mcp/server.js';
import { API_BASE, buildOpenApiDocument } from '../../worker/openapi.js';

type JsonSchema = { $ref?: string; description?: string; properties?: Record<string, JsonSchema> };
interface Parameter {
  name: string;
  in: string;
  description?: string;
}

const document = buildOpenApiDocument() as unknown as {
  paths: Record<
    string,
    Record<string, { parameters?: Parameter[]; requestBody?: { content: Record<string, { schema: JsonSchema }> } }>
  >;
  components?: { schemas?: Record<string, JsonSchema> };
};

function resolve(schema: JsonSchema | undefined): JsonSchema | undefined {
  const name = schema?.$ref?.replace('#/components/schemas/', '');
  return name ? document.components?.schemas?.[name] : schema;
}

/** Each input field's description as the published OpenAPI document states it. */
function documentedHelp(op: OperationDef): Map<string, string | undefined> {
  const path = `${API_BASE}${op.path}`.replace(/:(\w+)/g, '{$1}');
  const operation = document.paths[path]?.[op.method];
  if (!operation) throw new Error(`${op.id}: not in the OpenAPI document at ${op.method} ${path}`);
  const help = new Map<string, string | undefined>();
  for (const parameter of operation.parameters ?? []) help.set(parameter.name, parameter.description);
  const body = resolve(operation.requestBody?.content['application/json']?.schema);
  for (const [name, property] of Object.entries(body?.properties ?? {})) {
    help.set(name, property.description ?? resolve(property)?.description);
  }
  return help;
}

const flat = (text: string) => text.replace(/\s+/g, ' ');

describe('help text of the real registry', () => {
  const described = operationList.flatMap((op) => {
    const help = documentedHelp(op);
    return operationFields(op).map((field) => ({ op, field, documented: help.get(field.name) }));
  });

  it('every field reads the description the OpenAPI document gives it, and most have one', () => {
    for (const { op, field, documented } of described)
      expect(field.description, `${op.id}.${field.name}`).toBe(documented);
    expect(described.filter((d) => d.documented).length).toBeGreaterThan(described.length / 2);
  });

  it('each generated CLI command prints the description of each of its fields in --help', () => {
    const silent = { write: () => true } as unknown as NodeJS.WritableStream;
    const program = buildProgram({ env: {}, stdin: process.stdin, stdout: silent, stderr: silent });
    let checked = 0;
    for (const entry of program.generated) {
      const help = flat(entry.command.helpInformation());
      for (const binding of entry.bindings) {
        if (binding.via === 'secret' || !binding.field.description) continue;
        expect(help, `${entry.path}: ${binding.field.name}`).toContain(flat(binding.field.description));
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(10);
  });

  it('each MCP tool lists the description of each of its fields', async () => {
    const server = await buildServer({ env: { SWITCHBOARD_CONFIG: '/nonexistent/config.json' } });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'help-text-test', version: '1.0.0' });
    await client.connect(clientSide);
    try {
      const { tools } = await client.listTools();
      let checked = 0;
      for (const { op, field, documented } of described) {
        if (!op.mcp || !documented) continue;
        const name = op.mcp.tool;
        const tool = tools.find((t) => t.name === name);
        const property = tool?.inputSchema.properties?.[field.name] as { description?: string } | undefined;
        expect(property?.description, `${name}.${field.name}`).toBe(documented);
        checked++;
      }
      expect(checked).toBeGreaterThan(10);
    } finally {
      await client.close();
    }
  });
});

describe('fields from zod schemas (public zod API only)', () => {
  it('reads .openapi() help text through wrappers, and zod .describe() text', () => {
    const plain = z.string().openapi({ description: 'Plain.' });
    expect(describeSchema(plain)).toBe('Plain.');
    expect(describeSchema(plain.optional())).toBe('Plain.');
    expect(describeSchema(z.number().int().optional().openapi({ description: 'Outer.' }))).toBe('Outer.');
    expect(describeSchema(z.boolean().describe('Zod text.'))).toBe('Zod text.');
    expect(describeSchema(z.string())).toBeUndefined();
    expect(fieldInfo('a', 'body', plain.optional()).description).toBe('Plain.');
  });

  it('finds kind, requiredness, choices and items under wrappers and coercions', () => {
    const shape = {
      text: z.string(),
      count: z.coerce.number().int().min(1).optional(),
      flag: z.boolean().default(false),
      order: z.enum(['newest', 'oldest']).nullable().optional(),
      only: z.literal(['a', 'b']),
      ids: z.array(z.string()).max(5),
      pairs: z.array(z.object({ from: z.string(), to: z.enum(['x', 'y']) })).optional(),
      anything: z.record(z.string(), z.unknown()),
      fixed: z.string().readonly().catch('x'),
    };
    const info = (name: keyof typeof shape) => {
      const { schema: _schema, description: _description, ...rest } = fieldInfo(name, 'body', shape[name]);
      return rest;
    };
    expect(info('text')).toEqual({ name: 'text', location: 'body', kind: 'string', required: true });
    expect(info('count')).toMatchObject({ kind: 'number', required: false });
    expect(info('flag')).toMatchObject({ kind: 'boolean', required: false });
    expect(info('order')).toMatchObject({ kind: 'enum', required: false, enumValues: ['newest', 'oldest'] });
    expect(info('only')).toMatchObject({ kind: 'enum', required: true, enumValues: ['a', 'b'] });
    expect(info('ids')).toMatchObject({ kind: 'array', required: true, item: { kind: 'string' } });
    expect(info('pairs')).toMatchObject({
      kind: 'array',
      required: false,
      item: { kind: 'object', keys: ['from', 'to'] },
    });
    expect(info('anything')).toMatchObject({ kind: 'json', required: true });
    expect(info('fixed')).toMatchObject({ kind: 'string', required: false });
    expect(unwrap(shape.count).type).toBe('number');
    expect(
      Object.keys(
        objectShape(
          z
            .object(shape)
            .partial()
            .refine(() => true),
        ) ?? {},
      ),
    ).toEqual(Object.keys(shape));
    expect(objectShape(z.string())).toBeUndefined();
  });
});
