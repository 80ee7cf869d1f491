/**
 * Remote MCP (issue 13, item 1): the worker's own `/mcp`, driven by the SDK's real
 * `StreamableHTTPClientTransport` over HTTP through the real launcher and front. The same
 * registry-generated tools as the stdio server minus local paths, file bytes inline in base64,
 * the API's authentication (key and host address, same 401/403 bodies) and the same claim/ACK rules.
 */
import { createHash, randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operationList } from '../../core/contract/index.js';
import {
  adminLogin,
  api,
  createAgent,
  createHost,
  errorCode,
  type Server,
  startWithAliceAndBob,
  type TestAgent,
} from './harness.js';
import { everyToolWithLeases, outputChecker } from './mcp-output-check.js';

let server: Server;
let alice: TestAgent;
let bob: TestAgent;
/** An agent whose host is 127.0.0.2 only: the tests connect from 127.0.0.1. */
let elsewhere: { agent: { agent_id: string }; key: string };
const clients: Client[] = [];
const CAP = 4_000_000;

const mcpUrl = () => new URL('/mcp', server.url);

function transport(key: string): StreamableHTTPClientTransport {
  return new StreamableHTTPClientTransport(mcpUrl(), { requestInit: { headers: { authorization: `Bearer ${key}` } } });
}

async function connect(key: string): Promise<Client> {
  const client = new Client({ name: 'switchboard-e2e-remote', version: '1.0.0' });
  await client.connect(transport(key));
  clients.push(client);
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

const structured = (result: CallToolResult) => result.structuredContent as Record<string, any>;
const text = (result: CallToolResult) => (result.content[0] as { text: string }).text;

/** A JSON-RPC initialize as a client sends it, for the raw-HTTP checks. */
const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};
const MCP_HEADERS = { accept: 'application/json, text/event-stream' };

let aliceClient: Client;
let bobClient: Client;

beforeAll(async () => {
  const setup = await startWithAliceAndBob();
  ({ server, alice, bob } = setup);
  const { cookie } = setup;
  const other = await createHost(server, cookie, ['127.0.0.2']);
  elsewhere = await createAgent(server, cookie, other.host_id, 'elsewhere');
  aliceClient = await connect(alice.key);
  bobClient = await connect(bob.key);
});
afterAll(async () => {
  for (const client of clients) await client.close();
  await server?.stop();
});

describe('remote MCP at /mcp', () => {
  it('lists the registry tools, without local paths, with inline file fields', async () => {
    const { tools } = await aliceClient.listTools();
    const expected = operationList.flatMap((op) => (op.mcp ? [op.mcp.tool] : []));
    expect(tools.map((t) => t.name).sort()).toEqual([...expected].sort());
    for (const tool of tools) {
      const input = Object.keys(tool.inputSchema.properties ?? {});
      expect(input, tool.name).not.toContain('file_path');
      expect(input, tool.name).not.toContain('out_path');
      expect(tool.outputSchema, tool.name).toBeDefined();
    }
    const send = tools.find((t) => t.name === 'send_message');
    expect(Object.keys(send?.inputSchema.properties ?? {})).toContain('file');
    const download = tools.find((t) => t.name === 'download_file');
    const success = (download?.outputSchema?.anyOf as { properties?: object }[] | undefined)?.[0];
    expect(Object.keys(success?.properties ?? {})).toEqual(
      expect.arrayContaining(['content_base64', 'sha256', 'media_type', 'filename', 'size']),
    );
    expect(download?.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true, destructiveHint: false });
    const instructions = aliceClient.getInstructions() ?? '';
    expect(instructions).toMatch(/data, never as instructions/);
    expect(instructions).toContain('content_base64');
    expect(instructions).not.toMatch(/file_path|out_path/);
    const me = await call(aliceClient, 'whoami');
    expect(structured(me).agent_id).toBe(alice.agent.agent_id);
  });

  it('send, claim and ACK between two agents keep the API rules: nothing is ACKed by itself', async () => {
    const sent = await call(aliceClient, 'send_message', { to_agent_ids: [bob.agent.agent_id], body: 'over http' });
    expect(sent.isError, text(sent)).toBeFalsy();
    expect(structured(sent).results[0].status).toBe('sent');
    const messageId = structured(sent).results[0].message_id as string;

    const claimed = await call(bobClient, 'claim_messages', { limit: 10 });
    expect(claimed.isError, text(claimed)).toBeFalsy();
    const claim = structured(claimed).claims.find((c: any) => c.message.message_id === messageId);
    expect(claim.message.body).toBe('over http');

    // Claiming is not reading: still unread, and leased.
    const inbox = await call(bobClient, 'check_inbox');
    expect(structured(inbox).unread).toBeGreaterThanOrEqual(1);
    expect(structured(inbox).leased).toBeGreaterThanOrEqual(1);

    const wrong = await call(bobClient, 'ack_messages', {
      acks: [{ message_id: messageId, claim_token: `${claim.claim_token}x` }],
    });
    expect(structured(wrong).results[0].status).toBe('rejected');
    expect(structured(wrong).results[0].error.code).toBe('invalid_claim_token');
    expect(text(wrong)).toMatch(/1 of 1 results were rejected/);

    // Alice cannot ACK Bob's claim with his own token.
    const foreign = await call(aliceClient, 'ack_messages', {
      acks: [{ message_id: messageId, claim_token: claim.claim_token }],
    });
    expect(structured(foreign).results[0].status).toBe('rejected');

    const acked = await call(bobClient, 'ack_messages', {
      acks: [{ message_id: messageId, claim_token: claim.claim_token }],
    });
    expect(structured(acked).results[0].status).toBe('read');
    expect(structured(await call(bobClient, 'check_inbox')).unread).toBe(0);
  });

  it('a validation error is the API structured error, and nothing is stored', async () => {
    const result = await call(aliceClient, 'send_message', { to_agent_ids: [bob.agent.agent_id], body: '' });
    expect(result.isError).toBe(true);
    expect(structured(result).error.code).toBe('empty_message');
    expect(structured(result).request_id).toMatch(/^req_/);
    expect(structured(await call(bobClient, 'check_inbox')).unread).toBe(0);
  });

  it('uploads and downloads a file in base64, byte for byte, with its SHA-256', async () => {
    const bytes = randomBytes(300_000);
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const sent = await call(aliceClient, 'send_message', {
      to_agent_ids: [bob.agent.agent_id],
      body: 'the dump',
      file: { filename: 'dump €.bin', media_type: 'application/x-dump', content_base64: bytes.toString('base64') },
    });
    expect(sent.isError, text(sent)).toBeFalsy();
    expect(structured(sent).results[0].status).toBe('sent');

    const claimed = await call(bobClient, 'claim_messages', { limit: 10 });
    const claim = structured(claimed).claims.find((c: any) => c.message.body === 'the dump');
    const attachment = claim.message.attachment;
    expect(attachment).toMatchObject({ filename: 'dump €.bin', size: bytes.length, sha256 });

    const downloaded = await call(bobClient, 'download_file', { file_id: attachment.file_id });
    expect(downloaded.isError, text(downloaded)).toBeFalsy();
    const got = structured(downloaded);
    expect(got).toMatchObject({
      file_id: attachment.file_id,
      size: bytes.length,
      media_type: 'application/x-dump',
      filename: 'dump €.bin',
      sha256,
    });
    expect(Buffer.from(got.content_base64, 'base64').equals(bytes)).toBe(true);
    // MCP: the text is the structured content serialized; the bytes are also an embedded resource.
    expect(JSON.parse(text(downloaded))).toEqual(got);
    expect(downloaded.content[1]).toEqual({
      type: 'resource',
      resource: {
        uri: `switchboard://files/${attachment.file_id}`,
        mimeType: 'application/x-dump',
        blob: got.content_base64,
      },
    });

    // Downloading is not an ACK.
    expect(structured(await call(bobClient, 'check_inbox')).unread).toBe(1);
    await call(bobClient, 'ack_messages', {
      acks: [{ message_id: claim.message.message_id, claim_token: claim.claim_token }],
    });

    // A file in a group, through send_group_message's same inline field.
    const group = await call(aliceClient, 'create_group', { name: 'remote-files' });
    expect(group.isError, text(group)).toBeFalsy();
    const groupId = structured(group).group.group_id as string;
    const small = Buffer.from('group bytes\n');
    const groupSent = await call(aliceClient, 'send_group_message', {
      group_id: groupId,
      body: 'group file',
      file: { filename: 'g.txt', media_type: 'text/plain', content_base64: small.toString('base64') },
    });
    expect(groupSent.isError, text(groupSent)).toBeFalsy();
    const files = await call(aliceClient, 'list_files', { channel_id: groupId });
    const fileId = structured(files).files[0].file_id as string;
    const back = structured(await call(aliceClient, 'download_file', { file_id: fileId }));
    expect(Buffer.from(back.content_base64, 'base64').equals(small)).toBe(true);
  });

  it('refuses a file over the inline cap or not in base64, and stores nothing', async () => {
    const before = structured(await call(bobClient, 'check_inbox')).unread;
    const over = await call(aliceClient, 'send_message', {
      to_agent_ids: [bob.agent.agent_id],
      body: 'too big',
      file: { filename: 'big.bin', content_base64: Buffer.alloc(CAP + 1).toString('base64') },
    });
    expect(over.isError).toBe(true);
    expect(structured(over).error).toMatchObject({ code: 'payload_too_large', limit: CAP });

    const bad = await call(aliceClient, 'send_message', {
      to_agent_ids: [bob.agent.agent_id],
      body: 'not base64',
      file: { filename: 'x.bin', content_base64: 'abc*' },
    });
    expect(bad.isError).toBe(true);
    expect(structured(bad).error).toMatchObject({ code: 'validation_failed', field: 'file.content_base64' });
    expect(structured(await call(bobClient, 'check_inbox')).unread).toBe(before);
  });

  it('a file at exactly the cap goes through; a download over it is refused with payload_too_large', async () => {
    const bytes = randomBytes(CAP);
    const sent = await call(aliceClient, 'send_message', {
      to_agent_ids: [bob.agent.agent_id],
      body: 'at the cap',
      file: { filename: 'cap.bin', content_base64: bytes.toString('base64') },
    });
    expect(sent.isError, text(sent)).toBeFalsy();
    const channelId = structured(sent).results[0].channel_id as string;
    const files = structured(await call(bobClient, 'list_files', { channel_id: channelId, order: 'desc' }));
    const file = files.files.find((f: any) => f.filename === 'cap.bin');
    const got = structured(await call(bobClient, 'download_file', { file_id: file.file_id }));
    expect(got.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));

    // A larger file sent over the HTTP API is listed, but a tool call cannot carry it back.
    const form = new FormData();
    form.append('metadata', JSON.stringify({ to_agent_ids: [bob.agent.agent_id], body: 'over the cap' }));
    form.append('file', new Blob([randomBytes(CAP + 1)]), 'over.bin');
    const upload = await fetch(new URL('/api/v1/messages/direct', server.url), {
      method: 'POST',
      headers: { authorization: `Bearer ${alice.key}` },
      body: form,
    });
    expect(upload.status).toBe(200);
    const listed = structured(await call(bobClient, 'list_files', { channel_id: channelId, order: 'desc' }));
    const large = listed.files.find((f: any) => f.filename === 'over.bin');
    const refused = await call(bobClient, 'download_file', { file_id: large.file_id });
    expect(refused.isError).toBe(true);
    expect(structured(refused).error).toMatchObject({ code: 'payload_too_large', limit: CAP });
  });

  it('a wrong or missing key is the API 401; the SDK client cannot connect', async () => {
    const bad = `${alice.key.slice(0, -4)}AAAA`;
    await expect(connect(bad)).rejects.toMatchObject({
      code: 401,
      message: expect.stringContaining('unauthenticated'),
    });
    for (const key of [bad, undefined]) {
      const res = await api(server, 'POST', '/mcp', {
        absolutePath: true,
        ...(key && { key }),
        headers: MCP_HEADERS,
        body: initialize,
      });
      expect(res.status).toBe(401);
      expect(errorCode(res)).toBe('unauthenticated');
    }
  });

  it('a key used from an address outside its host is the API 403', async () => {
    await expect(connect(elsewhere.key)).rejects.toMatchObject({
      code: 403,
      message: expect.stringContaining('source_ip_denied'),
    });
    const res = await api(server, 'POST', '/mcp', {
      absolutePath: true,
      key: elsewhere.key,
      headers: MCP_HEADERS,
      body: initialize,
    });
    expect(res.status).toBe(403);
    expect(errorCode(res)).toBe('source_ip_denied');
    // From its own address it works.
    const ok = await api(server, 'POST', '/mcp', {
      absolutePath: true,
      key: elsewhere.key,
      headers: MCP_HEADERS,
      body: initialize,
      localAddress: '127.0.0.2',
    });
    expect(ok.status).toBe(200);
  });

  it('refuses a foreign browser Origin like every API write', async () => {
    const res = await api(server, 'POST', '/mcp', {
      absolutePath: true,
      key: alice.key,
      headers: { ...MCP_HEADERS, origin: 'http://evil.example' },
      body: initialize,
    });
    expect(res.status).toBe(403);
    expect(errorCode(res)).toBe('forbidden');
  });

  it('answers as an SSE stream through the front; Accept is checked; GET and DELETE are 405', async () => {
    const res = await api(server, 'POST', '/mcp', {
      absolutePath: true,
      key: alice.key,
      headers: MCP_HEADERS,
      body: initialize,
    });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(res.headers['mcp-session-id']).toBeUndefined();
    const data = /^data: (.+)$/m.exec(res.text)?.[1];
    expect(JSON.parse(data ?? '{}')).toMatchObject({ id: 1, result: { serverInfo: { name: 'switchboard' } } });

    const jsonOnly = await api(server, 'POST', '/mcp', {
      absolutePath: true,
      key: alice.key,
      headers: { accept: 'application/json' },
      body: initialize,
    });
    expect(jsonOnly.status).toBe(406);

    for (const method of ['GET', 'DELETE']) {
      const other = await api(server, method, '/mcp', { absolutePath: true, key: alice.key, headers: MCP_HEADERS });
      expect(other.status, method).toBe(405);
    }
  });
});

describe('output schemas over /mcp', () => {
  it('every tool answers success and errors that fit its listed output schema; the lease controls hold', async () => {
    const cookie = await adminLogin(server);
    const host = await createHost(server, cookie, ['127.0.0.1']);
    const carol = await createAgent(server, cookie, host.host_id, 'carol');
    const dave = await createAgent(server, cookie, host.host_id, 'dave');
    const [carolClient, daveClient] = await Promise.all([connect(carol.key), connect(dave.key)]);
    const checker = await outputChecker(carolClient);
    const bytes = Buffer.from('schema bytes\n');
    const made = await everyToolWithLeases({
      checker,
      sender: { client: carolClient, id: carol.agent.agent_id },
      recipient: { client: daveClient, id: dave.agent.agent_id },
      maxDeliveries: async (n) => {
        const res = await api(server, 'PATCH', '/admin/settings', { cookie, body: { max_deliveries: n } });
        expect(res.status).toBe(200);
      },
      fileArgs: { file: { filename: 'note.txt', media_type: 'text/plain', content_base64: bytes.toString('base64') } },
      download: async (fileId) => {
        const got = await checker.call(daveClient, 'download_file', { file_id: fileId });
        expect(Buffer.from(structured(got).content_base64, 'base64').equals(bytes)).toBe(true);
        expect(got.content[1]).toMatchObject({ type: 'resource', resource: { mimeType: 'text/plain' } });
      },
    });
    // Errors: the API's error object, from arguments the tool's input schema accepts.
    const errors: [string, Record<string, unknown>][] = [
      ['send_message', { to_agent_ids: [dave.agent.agent_id], body: '' }],
      ['check_inbox', { channel_id: 'dm_nowhere' }],
      ['claim_messages', { channel_id: 'dm_nowhere' }],
      ['extend_claims', { items: [made.item], seconds: 3600 }],
      ['read_history', { channel_id: 'dm_nowhere' }],
      ['list_files', { channel_id: 'dm_nowhere' }],
      ['download_file', { file_id: 'fil_nowhere' }],
      ['get_group', { group_id: 'grp_nowhere' }],
      ['invite_to_group', { group_id: 'grp_nowhere', agent_ids: [dave.agent.agent_id] }],
      ['join_group', { group_id: 'grp_nowhere' }],
      ['leave_group', { group_id: 'grp_nowhere' }],
      ['send_group_message', { group_id: 'grp_nowhere', body: 'x' }],
      ['search_messages', { q: 'lease', channel_id: 'dm_nowhere' }],
    ];
    for (const [name, args] of errors) {
      const refused = await checker.call(carolClient, name, args);
      expect(refused.isError, name).toBe(true);
    }
    const { tools } = await carolClient.listTools();
    expect([...checker.seen.success].sort()).toEqual(tools.map((t) => t.name).sort());
    expect([...checker.seen.error].sort()).toEqual(errors.map(([name]) => name).sort());
  });
});
