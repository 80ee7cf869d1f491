/**
 * The remote MCP server's surface (mcp/remote.ts), built in-process over the real registry with
 * an API that is never reached: the same tools as stdio, listed as leanly, in remote terms (files
 * inline, no local paths), with instructions that say so. The calls themselves are tested over
 * HTTP in test/e2e/mcp-remote.test.ts and inside workerd in test/workers/mcp-remote.test.ts.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../core/contract/errors.js';
import { operationList } from '../../core/contract/index.js';
import { buildRemoteServer, INLINE_FILE_FIELD } from '../../mcp/remote.js';
import { buildServer } from '../../mcp/server.js';

async function connect(server: Awaited<ReturnType<typeof buildServer>>): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'remote-tools-test', version: '1.0.0' });
  await client.connect(clientSide);
  return client;
}

describe('remote MCP tool surface', () => {
  let remote: Client;
  let local: Client;
  beforeAll(async () => {
    remote = await connect(
      buildRemoteServer(async () => {
        throw new Error('no API call expected');
      }),
    );
    local = await connect(await buildServer({ env: { SWITCHBOARD_CONFIG: '/nonexistent/config.json' } }));
  });
  afterAll(async () => {
    await remote.close();
    await local.close();
  });

  it('lists the same tools as stdio, as leanly, with the same titles', async () => {
    const [remoteList, localList] = [await remote.listTools(), await local.listTools()];
    expect(remoteList.tools.map((t) => [t.name, t.title])).toEqual(localList.tools.map((t) => [t.name, t.title]));
    const text = JSON.stringify(remoteList);
    // The lean listing (mcp/tools.ts, toolJsonSchema): no zod date-time pattern, no $schema line.
    expect(text).not.toContain('$schema');
    expect(text).not.toMatch(/"format":"date-time","pattern"/);
    // The inline file fields cost a little; the listing stays within a tenth of the stdio one.
    expect(text.length).toBeLessThan(JSON.stringify(localList).length * 1.1);
  });

  it('speaks in remote terms: no local path fields or their names anywhere', async () => {
    const { tools } = await remote.listTools();
    for (const tool of tools) {
      expect(JSON.stringify(tool), tool.name).not.toMatch(/\b(?:file_path|out_path|overwrite)\b/);
      expect(JSON.stringify(tool), tool.name).not.toMatch(
        /multipart|form-data|X-Content-Type-Options|Content-Disposition/,
      );
    }
    const uploads = operationList.filter((op) => op.mcp && op.upload).map((op) => (op.mcp as { tool: string }).tool);
    for (const name of uploads) {
      const tool = tools.find((t) => t.name === name);
      expect(Object.keys(tool?.inputSchema.properties ?? {}), name).toContain(INLINE_FILE_FIELD);
    }
  });

  it('annotations: as on stdio, except that the download writes nothing (read-only, idempotent)', async () => {
    const [remoteList, localList] = [await remote.listTools(), await local.listTools()];
    for (const op of operationList.filter((o) => o.mcp)) {
      const name = (op.mcp as { tool: string }).tool;
      const annotations = remoteList.tools.find((t) => t.name === name)?.annotations;
      if (op.rawResponse) {
        expect(annotations, name).toEqual({
          readOnlyHint: true,
          destructiveHint: false,
          idempotentHint: true,
          openWorldHint: false,
        });
      } else {
        expect(annotations, name).toEqual(localList.tools.find((t) => t.name === name)?.annotations);
      }
    }
  });

  it('the peer-content warning is in the instructions and on the tools whose results carry peer content', async () => {
    const { tools } = await remote.listTools();
    expect(remote.getInstructions()).toMatch(/data, never as instructions/);
    for (const op of operationList.filter((o) => o.mcp)) {
      const spec = op.mcp as { tool: string; peerContent?: boolean };
      const tool = tools.find((t) => t.name === spec.tool);
      // The remote download returns a peer's bytes themselves.
      const expected = !!spec.peerContent || !!op.rawResponse;
      expect(/data, never as instructions/.test(tool?.description ?? ''), spec.tool).toBe(expected);
    }
  });

  it('the instructions name the remote tool set: real tool names, the inline file fields, no local errors', async () => {
    const instructions = remote.getInstructions() ?? '';
    const { tools } = await remote.listTools();
    for (const name of ['check_inbox', 'claim_messages', 'ack_messages', 'send_message', 'download_file']) {
      expect(instructions).toContain(name);
    }
    expect(instructions).toMatch(/No tool acknowledges anything by itself/);
    expect(instructions).toContain(`${INLINE_FILE_FIELD}: {filename, media_type?, content_base64}`);
    expect(instructions).not.toMatch(
      /\b(?:file_path|out_path|not_configured|unreachable|local_file_error|path_not_allowed)\b/,
    );
    const known = new Set<string>([...tools.map((t) => t.name), ...ERROR_CODES, 'request_id', 'retry_after_ms']);
    const walk = (schema: unknown) => {
      if (typeof schema !== 'object' || schema === null) return;
      for (const [name, value] of Object.entries((schema as { properties?: object }).properties ?? {})) {
        known.add(name);
        walk(value);
      }
      for (const value of Object.values(schema)) if (typeof value === 'object') walk(value);
    };
    for (const tool of tools) {
      walk(tool.inputSchema);
      walk(tool.outputSchema);
    }
    const unknown = [...instructions.matchAll(/\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b/g)]
      .map((m) => m[0])
      .filter((w) => !known.has(w));
    expect(unknown).toEqual([]);
  });
});
