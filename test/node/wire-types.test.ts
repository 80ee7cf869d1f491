/**
 * A wire type is declared once, as a zod model in core/contract (the registry), and everything
 * else derives from it (`z.infer<typeof X>`, `.pick()`, `Omit<…> & …`), so a field is never spelled
 * twice. This fails when an interface or type alias outside core/contract spells out all the
 * fields of a contract model (or the members of a contract enum) by itself. Read with the
 * TypeScript parser: only what a declaration spells counts, so a derived type never matches.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { z } from '@hono/zod-openapi';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { objectShape } from '../../client/fields.js';
import * as contract from '../../core/contract/index.js';
import * as admin from '../../core/contract/operations/admin.js';
import * as adminConsole from '../../core/contract/operations/admin-console.js';
import * as admins from '../../core/contract/operations/admins.js';
import * as files from '../../core/contract/operations/files.js';
import * as groups from '../../core/contract/operations/groups.js';
import * as identity from '../../core/contract/operations/identity.js';
import * as messaging from '../../core/contract/operations/messaging.js';
import * as search from '../../core/contract/operations/search.js';
import { ROOT, sources } from './source-files.js';

/** The code that receives or produces the wire models (the admin console and the scripts aside). */
const CHECKED_DIRS = ['core', 'durable-objects', 'worker', 'client', 'cli', 'mcp', 'server'];

/** A model of fewer fields than this is too small to tell a restatement from a coincidence. */
const MIN_FIELDS = 2;

interface Model {
  name: string;
  fields: ReadonlySet<string>;
}

function isZod(value: unknown): value is z.ZodType {
  return typeof value === 'object' && value !== null && '_zod' in value;
}

/** Every zod object and enum the contract exports, and every operation's request and response object. */
function contractModels(): { objects: Model[]; enums: Model[] } {
  const objects = new Map<string, Model>();
  const enums: Model[] = [];
  const addObject = (name: string, schema: unknown) => {
    if (!isZod(schema)) return;
    const shape = objectShape(schema);
    if (!shape || Object.keys(shape).length < MIN_FIELDS) return;
    const fields = new Set(Object.keys(shape));
    const key = [...fields].sort().join(',');
    if (!objects.has(key)) objects.set(key, { name, fields });
  };
  const modules = { contract, admin, adminConsole, admins, files, groups, identity, messaging, search };
  for (const [module, exports] of Object.entries(modules)) {
    for (const [name, value] of Object.entries(exports)) {
      if (!isZod(value)) continue;
      if (value.type === 'enum') {
        const options = (value as z.ZodEnum).options.map(String);
        if (options.length >= MIN_FIELDS) enums.push({ name: `${module}.${name}`, fields: new Set(options) });
      } else addObject(`${module}.${name}`, value);
    }
  }
  for (const op of contract.operationList) {
    addObject(`${op.id} response`, op.response);
    addObject(`${op.id} body`, op.body);
  }
  return { objects: [...objects.values()], enums };
}

interface Declaration {
  where: string;
  name: string;
  /** Property names the declaration spells itself (one set per union member). */
  propertySets: Set<string>[];
  /** String literals of a union alias (`'a' | 'b'`), else null. */
  literals: Set<string> | null;
}

function propertyName(name: ts.PropertyName): string | null {
  return ts.isIdentifier(name) || ts.isStringLiteral(name) ? name.text : null;
}

function members(list: ts.NodeArray<ts.TypeElement>): Set<string> {
  const names = new Set<string>();
  for (const member of list) {
    if (ts.isPropertySignature(member) && member.name) {
      const name = propertyName(member.name);
      if (name) names.add(name);
    }
  }
  return names;
}

/** The property sets a type node spells: a literal, an intersection of literals, each member of a union. */
function spelled(node: ts.TypeNode): Set<string>[] {
  if (ts.isParenthesizedTypeNode(node)) return spelled(node.type);
  if (ts.isTypeLiteralNode(node)) return [members(node.members)];
  if (ts.isUnionTypeNode(node)) return node.types.flatMap(spelled);
  if (ts.isIntersectionTypeNode(node)) {
    const merged = new Set<string>();
    for (const part of node.types) for (const set of spelled(part)) for (const name of set) merged.add(name);
    return [merged];
  }
  return [];
}

function stringLiterals(node: ts.TypeNode): Set<string> | null {
  if (!ts.isUnionTypeNode(node)) return null;
  const values = new Set<string>();
  for (const part of node.types) {
    if (!ts.isLiteralTypeNode(part) || !ts.isStringLiteral(part.literal)) return null;
    values.add(part.literal.text);
  }
  return values;
}

function declarations(file: string, text: string): Declaration[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: Declaration[] = [];
  const visit = (node: ts.Node) => {
    const where = `${file}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}`;
    if (ts.isInterfaceDeclaration(node)) {
      found.push({ where, name: node.name.text, propertySets: [members(node.members)], literals: null });
    } else if (ts.isTypeAliasDeclaration(node)) {
      found.push({
        where,
        name: node.name.text,
        propertySets: spelled(node.type),
        literals: stringLiterals(node.type),
      });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function restatements(file: string, text: string, models: ReturnType<typeof contractModels>): string[] {
  const problems: string[] = [];
  const containsAll = (have: ReadonlySet<string>, model: Model) => [...model.fields].every((f) => have.has(f));
  for (const decl of declarations(file, text)) {
    for (const set of decl.propertySets) {
      for (const model of models.objects) {
        // A small model matches only exactly: two common field names alone prove little.
        const matches =
          model.fields.size < 3 ? set.size === model.fields.size && containsAll(set, model) : containsAll(set, model);
        if (matches) {
          problems.push(
            `${decl.where} ${decl.name} spells every field of ${model.name}: derive it (z.infer, pick, Omit)`,
          );
        }
      }
    }
    if (decl.literals) {
      for (const model of models.enums) {
        if (decl.literals.size === model.fields.size && containsAll(decl.literals, model)) {
          problems.push(`${decl.where} ${decl.name} restates the enum ${model.name}: derive it (z.infer)`);
        }
      }
    }
  }
  return problems;
}

describe('wire types are declared once, in core/contract', () => {
  const models = contractModels();

  it('finds the models', () => {
    const names = models.objects.map((m) => m.name);
    for (const expected of ['contract.Host', 'contract.Agent', 'contract.Message', 'groups.Group']) {
      expect(names).toContain(expected);
    }
  });

  it('no declaration outside core/contract spells a model out', () => {
    const files = CHECKED_DIRS.flatMap(sources).filter((f) => f.endsWith('.ts') && !f.startsWith('core/contract/'));
    expect(files.length).toBeGreaterThan(50);
    const problems = files.flatMap((file) => restatements(file, readFileSync(join(ROOT, file), 'utf8'), models));
    expect(problems).toEqual([]);
  });

  it('catches a restated model', () => {
    const text = `export interface HostView {
      host_id: string; name: string; addresses: string[]; os: string; description: string; created_at: string;
    }
    type Kind = 'private' | 'group';`;
    const problems = restatements('durable-objects/registry/example.ts', text, models);
    expect(problems.some((p) => p.includes('HostView') && p.includes('contract.Host'))).toBe(true);
    expect(problems.some((p) => p.includes('Kind') && p.includes('ChannelKind'))).toBe(true);
  });
});
