/**
 * The remote MCP endpoint inside workerd as Cloudflare runs it (no front, no front secret; the
 * edge's CF-Connecting-IP): raw JSON-RPC over `SELF.fetch`, checking that the bundle's MCP path
 * runs in the Workers runtime and that tool calls act with the caller's key and address.
 * The SDK client over HTTP through the real launcher is test/e2e/mcp-remote.test.ts.
 */
import { SELF } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { adminCookie, createAgent, createHost } from './helpers.js';

async function rpc(key: string, ip: string, method: string, params: Record<string, unknown> = {}) {
  const response = await SELF.fetch('https://switchboard.test/mcp', {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      'cf-connecting-ip': ip,
      accept: 'application/json, text/event-stream',
      'content-type': 'application/json',
      'mcp-protocol-version': '2025-06-18',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }),
  });
  const text = await response.text();
  const data = /^data: (.+)$/m.exec(text)?.[1];
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    text,
    message: data && JSON.parse(data),
  };
}

const callTool = async (key: string, name: string, args: Record<string, unknown>, ip = '10.0.0.1') =>
  (await rpc(key, ip, 'tools/call', { name, arguments: args })).message.result;

describe('remote MCP in workerd (the Cloudflare path)', () => {
  it('serves tools whose calls act as the caller, with files inline', async () => {
    const cookie = await adminCookie();
    const host = await createHost(cookie, ['10.0.0.1']);
    const alice = await createAgent(cookie, host.host_id);
    const bob = await createAgent(cookie, host.host_id);

    const init = await rpc(alice.key, '10.0.0.1', 'initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'workers-test', version: '1' },
    });
    expect(init.status).toBe(200);
    expect(init.type).toMatch(/^text\/event-stream/);
    expect(init.message.result.serverInfo.name).toBe('switchboard');

    const me = await callTool(alice.key, 'whoami', {});
    expect(me.structuredContent.agent_id).toBe(alice.agent.agent_id);

    const bytes = new TextEncoder().encode('bytes from the edge\n');
    const sent = await callTool(alice.key, 'send_message', {
      to_agent_ids: [bob.agent.agent_id],
      body: 'with a file',
      file: { filename: 'edge.txt', media_type: 'text/plain', content_base64: btoa(String.fromCharCode(...bytes)) },
    });
    expect(sent.isError).toBeFalsy();
    expect(sent.structuredContent.results[0].status).toBe('sent');

    const claimed = await callTool(bob.key, 'claim_messages', {});
    const attachment = claimed.structuredContent.claims[0].message.attachment;
    const file = await callTool(bob.key, 'download_file', { file_id: attachment.file_id });
    expect(file.structuredContent).toMatchObject({
      filename: 'edge.txt',
      size: bytes.length,
      sha256: attachment.sha256,
      content_base64: btoa(String.fromCharCode(...bytes)),
    });
    // Nothing was ACKed by claiming or downloading.
    expect((await callTool(bob.key, 'check_inbox', {})).structuredContent.unread).toBe(1);
  });

  it('a large inline file (kept out of the parse, decoded in place) arrives whole; bad base64 is refused as before', async () => {
    const cookie = await adminCookie();
    const host = await createHost(cookie, ['10.0.0.1']);
    const alice = await createAgent(cookie, host.host_id);
    const bob = await createAgent(cookie, host.host_id);
    // 300 kB: over the size below which the base64 is parsed with its call, with every byte value.
    const bytes = Uint8Array.from({ length: 300_001 }, (_, i) => (i * 131 + (i >> 8)) & 0xff);
    let binary = '';
    for (let at = 0; at < bytes.length; at += 0x8000) binary += String.fromCharCode(...bytes.subarray(at, at + 0x8000));
    const base64 = btoa(binary);
    const send = (content_base64: string, body = 'large') =>
      callTool(alice.key, 'send_message', {
        to_agent_ids: [bob.agent.agent_id],
        body,
        file: { filename: 'large.bin', content_base64 },
      });

    for (const bad of [`${base64}A`, `${base64.slice(0, 1000)}=${base64.slice(1001)}`, `${base64.slice(0, -4)}A===`]) {
      const refused = await send(bad, `bad ${bad.length}`);
      expect(refused.isError).toBe(true);
      expect(refused.structuredContent.error).toMatchObject({
        code: 'validation_failed',
        field: 'file.content_base64',
      });
    }
    const tooLarge = await send('A'.repeat(Math.ceil(4_000_000 / 3) * 4 + 4));
    expect(tooLarge.structuredContent.error).toMatchObject({ code: 'payload_too_large', field: 'file.content_base64' });

    const sent = await send(base64);
    expect(sent.isError, JSON.stringify(sent).slice(0, 300)).toBeFalsy();
    const claimed = await callTool(bob.key, 'claim_messages', {});
    const attachment = claimed.structuredContent.claims[0].message.attachment;
    expect(attachment.size).toBe(bytes.length);
    const file = await callTool(bob.key, 'download_file', { file_id: attachment.file_id });
    expect(file.structuredContent.content_base64).toBe(base64);
  });

  it('refuses a wrong address or key with the API bodies', async () => {
    const cookie = await adminCookie();
    const host = await createHost(cookie, ['10.0.0.1']);
    const { key } = await createAgent(cookie, host.host_id);
    const foreign = await rpc(key, '10.0.0.9', 'tools/list');
    expect(foreign.status).toBe(403);
    expect(JSON.parse(foreign.text).error.code).toBe('source_ip_denied');
    const wrong = await rpc(`${key.slice(0, -4)}AAAA`, '10.0.0.1', 'tools/list');
    expect(wrong.status).toBe(401);
    expect(JSON.parse(wrong.text).error.code).toBe('unauthenticated');
  });
});
