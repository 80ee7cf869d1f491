/**
 * Reads an operation's input fields out of its zod schemas, so the CLI options and the MCP tool
 * inputs are generated from the registry instead of being listed a second time.
 */
import { OpenAPIHono, type z } from '@hono/zod-openapi';
import type { OperationDef } from '../core/contract/registry.js';

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
  /** The help text (read lazily: see fieldInfo). */
  readonly description?: string;
}

/**
 * Introspection through zod 4's public API only (`schema.type` and each schema class's own
 * accessors: `.unwrap()`, `.in`, `.shape`, `.options`, `.values`, `.element`), so a zod upgrade
 * that reshapes its internals (`_zod`) cannot silently change the generated CLI and MCP inputs.
 */
const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'readonly', 'catch', 'nonoptional']);

/** The schema under optional/nullable/default wrappers and the input side of pipes (coercions). */
export function unwrap(schema: z.ZodType): z.ZodType {
  let current = schema;
  for (let depth = 0; depth < 32; depth++) {
    if (WRAPPERS.has(current.type)) current = (current as z.ZodOptional<z.ZodType>).unwrap();
    else if (current.type === 'pipe') current = (current as z.ZodPipe<z.ZodType, z.ZodType>).in;
    else return current;
  }
  return current;
}

/** The shape of an object schema (through wrappers and refinements), or undefined. */
export function objectShape(schema: z.ZodType | undefined): Record<string, z.ZodType> | undefined {
  if (!schema) return undefined;
  const inner = unwrap(schema);
  return inner.type === 'object' ? (inner as z.ZodObject<Record<string, z.ZodType>>).shape : undefined;
}

function enumValuesOf(schema: z.ZodType): readonly string[] | undefined {
  if (schema.type === 'enum') return (schema as z.ZodEnum).options.map(String);
  if (schema.type === 'literal') {
    const values = [...(schema as z.ZodLiteral).values];
    if (values.every((v) => typeof v === 'string')) return values;
  }
  return undefined;
}

function kindOf(schema: z.ZodType): FieldKind {
  const type = schema.type;
  if (type === 'string') return 'string';
  if (type === 'number') return 'number';
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

/** Help text already read, per schema (the OpenAPI generator is not free: it runs once per operation). */
const helpText = new WeakMap<z.ZodType, string | undefined>();

/**
 * The `.openapi({ description })` text of each schema. That metadata lives in a registry private
 * to the copy of @asteasolutions/zod-to-openapi that @hono/zod-openapi loads, so it is read the
 * way the OpenAPI document reads it: through @hono/zod-openapi's own generator (each schema as a
 * component). Importing zod-to-openapi here instead could load a second copy, whose registry is
 * empty, and every help text would silently vanish.
 */
function openApiDescriptions(schemas: readonly z.ZodType[]): (string | undefined)[] {
  const generator = new OpenAPIHono();
  schemas.forEach((schema, i) => {
    generator.openAPIRegistry.register(`s${i}`, schema);
  });
  const components = generator.getOpenAPI31Document({ openapi: '3.1.0', info: { title: 'fields', version: '0' } })
    .components?.schemas;
  return schemas.map((_, i) => {
    const description = (components?.[`s${i}`] as { description?: unknown } | undefined)?.description;
    return typeof description === 'string' ? description : undefined;
  });
}

/**
 * Reads the help text of every schema not read yet, in one generator run; one by one if the run
 * fails (the generator refuses a schema it cannot render, which then has no help text, as in
 * the OpenAPI document).
 */
function learnHelpText(schemas: readonly z.ZodType[]): void {
  const unknown = [...new Set(schemas.filter((schema) => !helpText.has(schema)))];
  if (unknown.length === 0) return;
  try {
    const descriptions = openApiDescriptions(unknown);
    unknown.forEach((schema, i) => {
      helpText.set(schema, descriptions[i]);
    });
  } catch {
    for (const schema of unknown) {
      try {
        helpText.set(schema, openApiDescriptions([schema])[0]);
      } catch {
        helpText.set(schema, undefined);
      }
    }
  }
}

/**
 * A field's help text: zod's own `.describe()`/`.meta()` text, or the `.openapi({ description })`
 * the contract uses.
 */
export function describeSchema(schema: z.ZodType): string | undefined {
  if (schema.description) return schema.description;
  learnHelpText([schema]);
  return helpText.get(schema);
}

export function fieldInfo(
  name: string,
  location: FieldLocation,
  schema: z.ZodType,
  siblings: readonly z.ZodType[] = [schema],
): FieldInfo {
  const inner = unwrap(schema);
  const kind = kindOf(inner);
  const info: FieldInfo = {
    name,
    location,
    schema,
    kind,
    // zod's own test for optional (what its deprecated isOptional() does): a default counts too.
    required: !schema.safeParse(undefined).success,
  };
  const values = enumValuesOf(inner);
  if (values) info.enumValues = values;
  if (kind === 'array') info.item = itemInfo((inner as z.ZodArray<z.ZodType>).element);
  // Read on first use: the help text costs an OpenAPI generator run (for the field and its
  // `siblings` at once), which a CLI call that shows no help should not pay at start-up.
  Object.defineProperty(info, 'description', {
    enumerable: true,
    configurable: true,
    get: () => {
      if (!schema.description) learnHelpText(siblings);
      return describeSchema(schema);
    },
  });
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
  const shapes: [FieldLocation, Record<string, z.ZodType>][] = [];
  for (const [location, schema] of parts) {
    if (!schema) continue;
    const shape = objectShape(schema);
    if (!shape) throw new Error(`${op.id}: the ${location} schema must be an object to be generated as fields`);
    shapes.push([location, shape]);
  }
  const siblings = shapes.flatMap(([, shape]) => Object.values(shape));
  for (const [location, shape] of shapes) {
    for (const [name, field] of Object.entries(shape)) fields.push(fieldInfo(name, location, field, siblings));
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
