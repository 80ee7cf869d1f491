/**
 * The registry answers getAgents and the directory from an in-memory copy of agents and hosts
 * (durable-objects/registry/agent-snapshot.ts) that only `snapshot.changing` drops. A write to
 * either table outside it would leave a disabled or deleted agent reachable, so every writer in
 * the Durable Objects' source is found here (drizzle's insert/update/delete on those tables and
 * SQL text writing them) and must sit inside a `changing(...)` call, or be one of the few listed
 * below with the reason it needs none.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ROOT, sources } from './source-files.js';

/** Writers allowed outside `changing`, by file and enclosing function, and why. */
const OUTSIDE: Record<string, { why: string; callersInsideChanging?: true }> = {
  'durable-objects/registry/agent-deletion.ts#recordDeletion': {
    why: 'deletes the row; each call of it must be inside changing',
    callersInsideChanging: true,
  },
  'durable-objects/registry/agent-sync-outbox.ts#mark': {
    why: 'bumps `version`, which the copy does not hold (and runs inside its callers’ changing)',
  },
  'durable-objects/registry/agent-snapshot.ts#accessed': { why: 'the copy patches itself' },
};

const SQL_WRITE = /\b(update|insert\s+(or\s+\w+\s+)?into|delete\s+from|replace\s+into)\s+["`]?(agents|hosts)\b/i;

function enclosingFunction(node: ts.Node): string {
  for (let at: ts.Node | undefined = node.parent; at; at = at.parent) {
    if ((ts.isFunctionDeclaration(at) || ts.isMethodDeclaration(at)) && at.name) return at.name.getText();
  }
  return '(top level)';
}

function insideChanging(node: ts.Node): boolean {
  for (let at: ts.Node | undefined = node.parent; at; at = at.parent) {
    if (ts.isCallExpression(at) && ts.isPropertyAccessExpression(at.expression)) {
      if (at.expression.name.text === 'changing') return true;
    }
  }
  return false;
}

function isTableWriter(node: ts.Node): boolean {
  if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
    const method = node.expression.name.text;
    const target = node.arguments[0]?.getText();
    return ['insert', 'update', 'delete'].includes(method) && (target === 'schema.agents' || target === 'schema.hosts');
  }
  return ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateHead(node)
    ? SQL_WRITE.test(node.text)
    : false;
}

function parse(file: string): ts.SourceFile {
  return ts.createSourceFile(file, readFileSync(join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest, true);
}

function walk(node: ts.Node, visit: (node: ts.Node) => void): void {
  visit(node);
  node.forEachChild((child) => walk(child, visit));
}

describe('writers of the registry’s agents and hosts', () => {
  const files = sources('durable-objects');

  it('drop the in-memory copy', () => {
    const unguarded: string[] = [];
    const seen = new Set<string>();
    let writers = 0;
    for (const file of files) {
      walk(parse(file), (node) => {
        if (!isTableWriter(node)) return;
        writers++;
        const site = `${file}#${enclosingFunction(node)}`;
        if (insideChanging(node)) return;
        if (OUTSIDE[site]) seen.add(site);
        else unguarded.push(site);
      });
    }
    expect(unguarded, 'run these writes inside AgentSnapshot.changing').toEqual([]);
    // The inventory stays true: a listed exception that no longer writes is removed from the list.
    expect([...seen].sort()).toEqual(Object.keys(OUTSIDE).sort());
    expect(writers).toBeGreaterThanOrEqual(10);
  });

  it('call the listed helpers only inside changing', () => {
    const helpers = Object.keys(OUTSIDE)
      .filter((site) => OUTSIDE[site]?.callersInsideChanging)
      .map((site) => site.split('#')[1]!);
    const calls: string[] = [];
    for (const file of files) {
      walk(parse(file), (node) => {
        if (!ts.isCallExpression(node) || !ts.isIdentifier(node.expression)) return;
        if (!helpers.includes(node.expression.text)) return;
        calls.push(`${file}#${enclosingFunction(node)}: ${insideChanging(node) ? 'inside' : 'OUTSIDE'} changing`);
      });
    }
    expect(calls.length).toBeGreaterThan(0);
    expect(calls.filter((c) => c.endsWith('OUTSIDE changing'))).toEqual([]);
  });
});
