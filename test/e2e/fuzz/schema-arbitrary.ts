/**
 * fast-check arbitraries from the JSON Schemas of `openapi.json` (OpenAPI 3.1, JSON Schema
 * 2020-12): values the document says are valid, and near-valid ones, a valid value with exactly
 * one thing wrong that the schema itself refuses. Only the keywords the registry's zod schemas
 * emit are supported; any other keyword throws, so a new kind of schema cannot be fuzzed silently
 * as something else.
 */
import fc from 'fast-check';

export type Schema = {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  minProperties?: number;
  items?: Schema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  default?: unknown;
  [keyword: string]: unknown;
};

/** Keywords that describe but do not constrain. */
const ANNOTATIONS = new Set(['description', 'title', 'example', 'examples', 'default', 'deprecated', 'readOnly']);
const KNOWN = new Set([
  ...ANNOTATIONS,
  '$ref',
  'type',
  'enum',
  'const',
  'anyOf',
  'oneOf',
  'allOf',
  'properties',
  'required',
  'additionalProperties',
  'minProperties',
  'items',
  'minItems',
  'maxItems',
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'propertyNames',
]);

/** Strings stay short unless the schema asks for more: the fuzzer looks for shapes, not sizes. */
const MAX_GENERATED_LENGTH = 24;

export class SchemaSpace {
  constructor(private readonly components: Record<string, Schema>) {}

  resolve(schema: Schema): Schema {
    let current = schema;
    while (current.$ref) {
      const name = current.$ref.replace('#/components/schemas/', '');
      const target = this.components[name];
      if (!target) throw new Error(`unknown $ref ${current.$ref}`);
      const { $ref: _ref, ...rest } = current;
      current = { ...target, ...rest };
    }
    for (const keyword of Object.keys(current)) {
      if (!KNOWN.has(keyword)) throw new Error(`the fuzzer does not know the keyword "${keyword}"`);
    }
    return current;
  }

  /** Values the schema accepts. `overrides` replaces the arbitrary of a top-level property. */
  valid(raw: Schema, overrides: Record<string, fc.Arbitrary<unknown>> = {}): fc.Arbitrary<unknown> {
    const schema = this.resolve(raw);
    if (schema.const !== undefined) return fc.constant(schema.const);
    if (schema.enum) return fc.constantFrom(...schema.enum);
    const alternatives = schema.anyOf ?? schema.oneOf;
    if (alternatives) return fc.oneof(...alternatives.map((alternative) => this.valid(alternative)));
    if (schema.allOf) {
      if (schema.allOf.length !== 1) throw new Error('allOf with more than one schema');
      return this.valid(schema.allOf[0] as Schema, overrides);
    }
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (types.length > 1) {
      return fc.oneof(...types.map((type) => this.valid({ ...schema, type } as Schema, overrides)));
    }
    switch (types[0]) {
      case 'null':
        return fc.constant(null);
      case 'boolean':
        return fc.boolean();
      case 'integer':
      case 'number': {
        const min = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : -1000);
        const max = schema.maximum ?? (schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - 1 : 1_000_000);
        return fc.integer({ min: Math.ceil(min), max: Math.floor(Math.min(max, Number.MAX_SAFE_INTEGER)) });
      }
      case 'string':
        return this.validString(schema);
      case 'array': {
        const minLength = schema.minItems ?? 0;
        const maxLength = Math.max(minLength, Math.min(schema.maxItems ?? 4, 4));
        return fc.array(this.valid(schema.items ?? {}), { minLength, maxLength });
      }
      case 'object':
      case undefined:
        return this.validObject(schema, overrides);
      default:
        throw new Error(`unknown type ${String(types[0])}`);
    }
  }

  private validString(schema: Schema): fc.Arbitrary<string> {
    if (schema.format === 'binary') return fc.string();
    if (schema.format === 'date-time') {
      return fc
        .date({ min: new Date('2020-01-01T00:00:00Z'), max: new Date('2030-01-01T00:00:00Z'), noInvalidDate: true })
        .map((date) => date.toISOString());
    }
    if (schema.format === 'ipv4') return fc.ipV4();
    if (schema.format === 'ipv6') return fc.ipV6();
    if (schema.format) throw new Error(`unknown string format ${schema.format}`);
    const minLength = schema.minLength ?? 0;
    const maxLength = Math.max(minLength, Math.min(schema.maxLength ?? MAX_GENERATED_LENGTH, MAX_GENERATED_LENGTH));
    if (schema.pattern) {
      const pattern = new RegExp(schema.pattern, 'u');
      return fc
        .stringMatching(pattern)
        .filter((text) => [...text].length >= minLength && [...text].length <= (schema.maxLength ?? Infinity));
    }
    return fc.string({ unit: 'grapheme', minLength, maxLength });
  }

  private validObject(schema: Schema, overrides: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<unknown> {
    const properties = schema.properties ?? {};
    const required = new Set(schema.required ?? []);
    const record: Record<string, fc.Arbitrary<unknown>> = {};
    for (const [name, property] of Object.entries(properties)) {
      record[name] = overrides[name] ?? this.valid(property);
    }
    const requiredKeys = Object.keys(record).filter((name) => required.has(name));
    return fc
      .record(record, { requiredKeys })
      .filter((value) => Object.keys(value as object).length >= (schema.minProperties ?? 0));
  }

  /**
   * A valid value with one mutation the schema refuses: a required property missing, a property
   * of the wrong type, a string over its maximum or off its pattern, a number out of range, a
   * value outside its enum. Answers undefined when the schema leaves nothing to break.
   */
  nearValid(raw: Schema, valid: unknown, random: () => number): unknown {
    const schema = this.resolve(raw);
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (schema.anyOf || schema.oneOf || types.length > 1 || schema.allOf) return { wrongType: true };
    if (schema.enum) return '\u0000not-in-enum';
    switch (types[0]) {
      case 'string': {
        const options: unknown[] = [42];
        if (schema.maxLength !== undefined) options.push('x'.repeat(schema.maxLength + 1));
        if (schema.minLength) options.push('');
        if (schema.pattern) options.push('\u2603 off the pattern');
        return options[Math.floor(random() * options.length)];
      }
      case 'integer':
      case 'number': {
        const options: unknown[] = ['not a number', 1.5];
        if (schema.maximum !== undefined) options.push(schema.maximum + 1);
        if (schema.minimum !== undefined) options.push(schema.minimum - 1);
        return options[Math.floor(random() * options.length)];
      }
      case 'boolean':
        return 'yes';
      case 'array':
        if (schema.maxItems !== undefined && random() < 0.3) {
          return Array.from({ length: schema.maxItems + 1 }, () => (valid as unknown[] | undefined)?.[0] ?? null);
        }
        return { notAnArray: true };
      case 'object':
      case undefined: {
        if (typeof valid !== 'object' || valid === null) return 'not an object';
        const value = { ...(valid as Record<string, unknown>) };
        const present = Object.keys(value).filter((name) => schema.properties?.[name]);
        const required = (schema.required ?? []).filter((name) => name in value);
        if (required.length > 0 && random() < 0.4) {
          delete value[required[Math.floor(random() * required.length)] as string];
          return value;
        }
        if (present.length === 0) return schema.minProperties ? {} : 'not an object';
        const name = present[Math.floor(random() * present.length)] as string;
        value[name] = this.nearValid(schema.properties?.[name] as Schema, value[name], random);
        return value;
      }
      default:
        return undefined;
    }
  }
}
