import { SELF } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { operationList, operations } from '../../core/contract/index.js';
import committed from '../../openapi.json';
import { handlers } from '../../worker/handlers/index.js';

describe('the operation registry', () => {
  it('keys every operation by its own id, with unique routes, CLI commands and MCP tools', () => {
    for (const [key, op] of Object.entries(operations)) expect(op.id).toBe(key);
    const routes = operationList.map((op) => `${op.method} ${op.path}`);
    expect(new Set(routes).size).toBe(routes.length);
    const commands = operationList.flatMap((op) => (op.cli ? [op.cli.command] : []));
    expect(new Set(commands).size).toBe(commands.length);
    const tools = operationList.flatMap((op) => (op.mcp ? [op.mcp.tool] : []));
    expect(new Set(tools).size).toBe(tools.length);
    for (const op of operationList) {
      if (op.role === 'admin') expect(op.mcp, `${op.id}: agents get no admin tools`).toBe(false);
    }
  });

  it('has a handler for every operation and no other', () => {
    expect(Object.keys(handlers).sort()).toEqual(Object.keys(operations).sort());
  });

  it('serves exactly the committed openapi.json (run `npm run openapi` after changing the contract)', async () => {
    for (const path of ['/openapi.json', '/api/v1/openapi.json']) {
      const res = await SELF.fetch(`https://switchboard.test${path}`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual(committed);
    }
    const paths = Object.keys((committed as { paths: Record<string, unknown> }).paths);
    for (const op of operationList) expect(paths).toContain(`/api/v1${op.path}`);
  });
});
