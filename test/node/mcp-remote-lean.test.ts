/**
 * The lean path of `/mcp` (mcp/remote.ts, handleRemoteMcp): a single JSON-RPC request answered
 * without the SDK's transport must be the SDK's answer, byte for byte (status, headers, body).
 * Each request is answered twice by the same server: with the parsed body (the lean path, when it
 * applies) and without (the SDK's transport reads and answers the body itself).
 */
import { describe, expect, it } from 'vitest';
import { type ApiCall, handleRemoteMcp } from '../../mcp/remote.js';

// An undeclared field too: the structured content leaves it out, the text keeps it.
const me = {
  agent_id: 'agt_lean',
  name: 'lean',
  display_name: 'Lean',
  host_id: 'hst_lean',
  capabilities: ['send'],
  undeclared: 1,
};
let answerOfMe: unknown = me;
const api: ApiCall = async (method, path) => {
  if (method === 'GET' && path === '/me') {
    return new Response(JSON.stringify(answerOfMe), {
      headers: { 'content-type': 'application/json' },
    });
  }
  return new Response(JSON.stringify({ request_id: 'req_lean', error: { code: 'not_found', message: 'No.' } }), {
    status: 404,
    headers: { 'content-type': 'application/json' },
  });
};

const HEADERS = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };

async function answer(body: unknown, headers: Record<string, string>, lean: boolean) {
  const text = JSON.stringify(body);
  const request = new Request('http://localhost/mcp', { method: 'POST', headers, body: text });
  const response = await handleRemoteMcp(request, api, lean ? JSON.parse(text) : undefined);
  const answered: [string, string][] = [];
  response.headers.forEach((value, name) => {
    answered.push([name, value]);
  });
  return { status: response.status, headers: answered, body: await response.text() };
}

async function same(body: unknown, headers: Record<string, string> = HEADERS) {
  const sdk = await answer(body, headers, false);
  const lean = await answer(body, headers, true);
  expect(lean).toEqual(sdk);
  return sdk;
}

describe('remote MCP lean path', () => {
  it('answers initialize, tools/list and tools/call as the SDK transport does', async () => {
    const init = await same({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'lean', version: '1' } },
    });
    expect(init.status).toBe(200);
    expect(init.body).toMatch(/^event: message\ndata: \{.*"serverInfo".*\}\n\n$/s);
    const versioned = { ...HEADERS, 'mcp-protocol-version': '2025-06-18' };
    const list = await same({ jsonrpc: '2.0', id: 'list-1', method: 'tools/list' }, versioned);
    expect(list.body).toContain('"whoami"');
    const call = (id: unknown, name: string, args: unknown, extra: object = {}) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name, arguments: args, ...extra },
    });
    const whoami = await same(call(7, 'whoami', {}), versioned);
    expect(whoami.body).toContain('"structuredContent":{"agent_id":"agt_lean"');
    expect(whoami.body).not.toContain(
      '"structuredContent":{"agent_id":"agt_lean","name":"lean","display_name":"Lean","host_id":"hst_lean","capabilities":["send"],"undeclared"',
    );
    await same(call(8, 'whoami', {}, { _meta: { progressToken: 3 } }));
    // An API error, an invalid argument and an unknown tool are tool results or JSON-RPC errors alike.
    await same(call(9, 'get_channel_messages', { channel_id: 'chn_x' }));
    await same(call(10, 'whoami', { unexpected: [1, 2] }));
    await same(call(11, 'no_such_tool', {}));
  });

  it('leaves everything unusual to the SDK transport, with its answers', async () => {
    const ping = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
    await same([ping, { ...ping, id: 2 }]);
    await same({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await same({ ...ping, extra: true });
    await same({ ...ping, id: 1.5 });
    await same({ ...ping, params: null });
    await same({ ...ping, params: { _meta: { progressToken: 1.5 } } });
    await same(ping, { ...HEADERS, 'mcp-protocol-version': '1999-01-01' });
    await same(ping, { ...HEADERS, accept: 'application/json' });
    await same(ping, { ...HEADERS, 'content-type': 'text/plain' });
  });

  it('refuses an answer outside the output schema with the SDK output check message', async () => {
    answerOfMe = { agent_id: 'agt_lean', name: 7 };
    try {
      const { body } = await same({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami' } });
      const message = JSON.parse(body.replace(/^event: message\ndata: /, '')).result;
      expect(message).toEqual({
        content: [
          {
            type: 'text',
            text:
              'MCP error -32602: Output validation error: Invalid structured content for tool whoami: ' +
              'Invalid input: expected string, received number at name\n' +
              'Invalid input: expected string, received undefined at display_name\n' +
              'Invalid input: expected string, received undefined at host_id\n' +
              'Invalid input: expected array, received undefined at capabilities',
          },
        ],
        isError: true,
      });
    } finally {
      answerOfMe = me;
    }
  });
});
