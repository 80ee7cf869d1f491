/**
 * Reads an operation's input fields out of its zod schemas, so the CLI options and the MCP tool
 * inputs are generated from the registry instead of being listed a second time.
 */
import { getOpenApiMetadata } from '@asteasolutions/zod-to-openapi';
import type { z } from '@hono/zod-openapi';
import type { OperationDef } from '../../worker/contract/registry.js';

export type FieldLocation = 'params' | 'query' | 'body';
export type FieldKind = 'string' | 'number' | 'boolean' | 'enum' | 'array' | 'object' | 'json';

export interface ItemInfo {
  kind: FieldKind;
  enumValues?: readonly string[];
  /** The fields of an object item, in declaration order (`A:B` words follow this order). */
  keys?: readonly string[];
}

export interface FieldInfo {
  name: string;
  location: FieldLocation;
  /** The field's schema exactly as the operation declares it. */
  schema: z.ZodType;
  kind: FieldKind;
  /** The caller must supply it (not optional and without a default). */
  required: boolean;
  enumValues?: readonly string[];
  /** For arrays: what one element is. */
  item?: ItemInfo;
  description?: string;
}

// zod v4 keeps its definition on `_zod.def`; these are the only parts read here.
interface ZodInternals {
  _zod: {
    def: {
      type: string;
      innerType?: z.ZodType;
      in?: z.ZodType;
      element?: z.ZodType;
      entries?: Record<string, string | number>;
      values?: readonly unknown[];
      shape?: Record<string, z.ZodType>;
    };
    optin?: 'optional';
  };
}

const internals = (schema: z.ZodType) => schema as unknown as ZodInternals;

const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'readonly', 'catch', 'nonoptional']);

/** The schema under optional/nullable/default wrappers and the input side of pipes (coercions). */
export function unwrap(schema: z.ZodType): z.ZodType {
  let current = schema;
  for (let depth = 0; depth < 32; depth++) {
    const def = internals(current)._zod.def;
    if (WRAPPERS.has(def.type) && def.innerType) current = def.innerType;
    else if (def.type === 'pipe' && def.in) current = def.in;
    else return current;
  }
  return current;
}

/** The shape of an object schema (through wrappers and refinements), or undefined. */
export function objectShape(schema: z.ZodType | undefined): Record<string, z.ZodType> | undefined {
  if (!schema) return undefined;
  const def = internals(unwrap(schema))._zod.def;
  return def.type === 'object' ? def.shape : undefined;
}

function enumValuesOf(schema: z.ZodType): readonly string[] | undefined {
  const def = internals(schema)._zod.def;
  if (def.type === 'enum' && def.entries) return Object.values(def.entries).map(String);
  if (def.type === 'literal' && def.values?.every((v) => typeof v === 'string')) return def.values as string[];
  return undefined;
}

function kindOf(schema: z.ZodType): FieldKind {
  const type = internals(schema)._zod.def.type;
  if (type === 'string') return 'string';
  if (type === 'number' || type === 'int') return 'number';
  if (type === 'boolean') return 'boolean';
  if (enumValuesOf(schema)) return 'enum';
  if (type === 'array') return 'array';
  if (type === 'object') return 'object';
  return 'json';
}

function itemInfo(schema: z.ZodType): ItemInfo {
  const inner = unwrap(schema);
  const kind = kindOf(inner);
  const info: ItemInfo = { kind };
  const values = enumValuesOf(inner);
  if (values) info.enumValues = values;
  if (kind === 'object') info.keys = Object.keys(objectShape(inner) ?? {});
  return info;
}

/**
 * A field's help text: `.describe()`/`.meta()` text, or the `.openapi({ description })` the
 * contract uses (kept in @hono/zod-openapi's own metadata registry).
 */
export function describeSchema(schema: z.ZodType): string | undefined {
  const own = (schema as { description?: string }).description;
  if (own) return own;
  const meta = getOpenApiMetadata(schema as never) as { description?: unknown };
  return typeof meta.description === 'string' ? meta.description : undefined;
}

export function fieldInfo(name: string, location: FieldLocation, schema: z.ZodType): FieldInfo {
  const inner = unwrap(schema);
  const kind = kindOf(inner);
  const info: FieldInfo = {
    name,
    location,
    schema,
    kind,
    required: internals(schema)._zod.optin !== 'optional',
  };
  const values = enumValuesOf(inner);
  if (values) info.enumValues = values;
  const element = internals(inner)._zod.def.element;
  if (kind === 'array' && element) info.item = itemInfo(element);
  const description = describeSchema(schema);
  if (description) info.description = description;
  return info;
}

/** Every input field of an operation: path params, then query, then body, in declaration order. */
export function operationFields(op: OperationDef): FieldInfo[] {
  const fields: FieldInfo[] = [];
  const parts: [FieldLocation, z.ZodType | undefined][] = [
    ['params', op.params],
    ['query', op.query],
    ['body', op.body],
  ];
  for (const [location, schema] of parts) {
    if (!schema) continue;
    const shape = objectShape(schema);
    if (!shape) throw new Error(`${op.id}: the ${location} schema must be an object to be generated as fields`);
    for (const [name, field] of Object.entries(shape)) fields.push(fieldInfo(name, location, field));
  }
  return fields;
}

export interface SplitInput {
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  body: Record<string, unknown>;
}

/** Sorts flat, field-keyed values into the request parts the fields belong to. */
export function splitInput(fields: readonly FieldInfo[], values: Record<string, unknown>): SplitInput {
  const split: SplitInput = { params: {}, query: {}, body: {} };
  for (const field of fields) {
    const value = values[field.name];
    if (value !== undefined) split[field.location][field.name] = value;
  }
  return split;
}
