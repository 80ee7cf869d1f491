/**
 * Checks live tool results against the output schema each tool lists, with a JSON Schema
 * validator (ajv, as SDK clients validate), for both MCP transports (mcp.test.ts over stdio,
 * mcp-remote.test.ts over /mcp). A schema that `{}` satisfies promises nothing and fails here.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import Ajv, { type ValidateFunction } from 'ajv';
import { expect } from 'vitest';

export interface OutputChecker {
  /** Calls a tool and checks the answer, success or error, against its listed output schema. */
  call(client: Client, name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  /** The tools answered at least once with success and with an error. */
  seen: { success: Set<string>; error: Set<string> };
}

export async function outputChecker(client: Client): Promise<OutputChecker> {
  const { tools } = await client.listTools();
  // Formats (date-time) are the server's own zod output; the shapes and required fields are checked here.
  const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: true });
  const validators = new Map<string, ValidateFunction>();
  for (const tool of tools) {
    const validate = ajv.compile(tool.outputSchema ?? {});
    expect(validate({}), `${tool.name}: {} satisfies its output schema`).toBe(false);
    validators.set(tool.name, validate);
  }
  const seen = { success: new Set<string>(), error: new Set<string>() };
  return {
    seen,
    async call(caller, name, args = {}) {
      // The raw request, so a schema mismatch shows here rather than as the SDK client's own throw.
      const result = (await caller.callTool({ name, arguments: args })) as CallToolResult;
      const validate = validators.get(name);
      expect(validate, `${name} is listed`).toBeDefined();
      expect(result.structuredContent, `${name}: structured content`).toBeDefined();
      const ok = validate!(result.structuredContent);
      expect(ok, `${name} ${result.isError ? 'error' : 'success'}: ${ajv.errorsText(validate!.errors)}`).toBe(true);
      // MCP: a tool with structured content also returns it serialized as text (an error adds its line before).
      const first = result.content[0] as { type: string; text: string };
      expect(first.type).toBe('text');
      if (!result.isError) expect(JSON.parse(first.text.split('\n')[0]!)).toMatchObject(result.structuredContent!);
      (result.isError ? seen.error : seen.success).add(name);
      return result;
    },
  };
}

export interface Peer {
  client: Client;
  id: string;
}

export interface LeaseScenario {
  checker: OutputChecker;
  sender: Peer;
  recipient: Peer;
  /** Sets max_deliveries (the administrator's settings). */
  maxDeliveries: (n: number) => Promise<void>;
  /** The send tool's file argument(s) for one small attachment. */
  fileArgs: Record<string, unknown>;
  /** The download tool's arguments for a file ID; checks the result and returns nothing. */
  download: (fileId: string) => Promise<void>;
}

const data = (result: CallToolResult) => result.structuredContent as Record<string, any>;

/**
 * Every tool once with success, between two fresh agents, through the lease controls: claim →
 * extend → release → claim again (delivery_count 2), refused extends and releases that leave the
 * lease as it was, parking after max_deliveries and `claim {parked:true}`. Returns the IDs it made.
 */
export async function everyToolWithLeases(s: LeaseScenario) {
  const { checker, sender, recipient } = s;
  const call = checker.call;
  for (const name of ['whoami', 'list_directory', 'get_limits', 'list_channels']) {
    expect((await call(sender.client, name)).isError, name).toBeFalsy();
  }
  const sent = data(
    await call(sender.client, 'send_message', { to_agent_ids: [recipient.id], body: 'lease check', ...s.fileArgs }),
  ).results[0];
  expect(sent.status).toBe('sent');
  const channel_id = sent.channel_id as string;
  expect(data(await call(recipient.client, 'check_inbox'))).toMatchObject({ unread: 1, claimable: 1 });

  const first = data(await call(recipient.client, 'claim_messages', { limit: 1 })).claims[0];
  expect(first).toMatchObject({ delivery_count: 1, message: { message_id: sent.message_id } });
  const item = { message_id: first.message.message_id, claim_token: first.claim_token };
  const extended = data(await call(recipient.client, 'extend_claims', { items: [item], seconds: 30 })).results[0];
  expect(extended).toMatchObject({ status: 'extended', claim_expires_at: expect.any(String) });

  // Refused: a foreign caller, a forged token, a malformed ID. None changes the lease.
  const foreign = data(await call(sender.client, 'extend_claims', { items: [item] })).results[0];
  expect(foreign).toMatchObject({ status: 'rejected', error: { code: 'not_found' } });
  const forged = data(await call(recipient.client, 'release_claims', { items: [{ ...item, claim_token: 'forged' }] }));
  expect(forged.results[0]).toMatchObject({ status: 'rejected', error: { code: 'invalid_claim_token' } });
  for (const name of ['extend_claims', 'release_claims']) {
    const bad = (await recipient.client.callTool({
      name,
      arguments: { items: [{ ...item, message_id: 'bob' }] },
    })) as CallToolResult;
    expect(bad.isError, name).toBe(true);
    expect(JSON.stringify(bad.content), name).toMatch(/must be an ID starting with msg_ at items\[0\]\.message_id/);
  }
  expect(data(await call(recipient.client, 'check_inbox'))).toMatchObject({ unread: 1, leased: 1, claimable: 0 });

  expect(data(await call(recipient.client, 'release_claims', { items: [item] })).results[0].status).toBe('released');
  // The released token no longer acts.
  for (const name of ['release_claims', 'extend_claims']) {
    const again = data(await call(recipient.client, name, { items: [item] })).results[0];
    expect(again, name).toMatchObject({ status: 'rejected', error: { code: 'claim_expired' } });
  }
  const second = data(await call(recipient.client, 'claim_messages', { limit: 1 })).claims[0];
  expect(second).toMatchObject({ delivery_count: 2, message: { message_id: sent.message_id } });

  await s.maxDeliveries(2);
  try {
    const item2 = { message_id: second.message.message_id, claim_token: second.claim_token };
    expect(data(await call(recipient.client, 'release_claims', { items: [item2] })).results[0].status).toBe('released');
    expect(data(await call(recipient.client, 'check_inbox'))).toMatchObject({ unread: 1, claimable: 0, parked: 1 });
    expect(data(await call(recipient.client, 'claim_messages', {})).claims).toEqual([]);
    const parked = data(await call(recipient.client, 'claim_messages', { parked: true })).claims[0];
    expect(parked).toMatchObject({ delivery_count: 3, message: { message_id: sent.message_id } });
    const acked = data(
      await call(recipient.client, 'ack_messages', {
        acks: [{ message_id: parked.message.message_id, claim_token: parked.claim_token }],
      }),
    );
    expect(acked.results[0].status).toBe('read');
  } finally {
    await s.maxDeliveries(0);
  }
  expect(data(await call(recipient.client, 'check_inbox'))).toMatchObject({ unread: 0, parked: 0 });

  await call(recipient.client, 'read_history', { channel_id });
  await call(recipient.client, 'search_messages', { q: 'lease check' });
  const file_id = data(await call(recipient.client, 'list_files', { channel_id })).files[0].file_id as string;
  await s.download(file_id);

  const group = data(await call(sender.client, 'create_group', { name: `schemas-${Date.now()}` })).group;
  const group_id = group.group_id as string;
  await call(sender.client, 'get_group', { group_id });
  await call(sender.client, 'invite_to_group', { group_id, agent_ids: [recipient.id] });
  await call(recipient.client, 'join_group', { group_id });
  await call(sender.client, 'send_group_message', { group_id, body: 'to the group' });
  await call(recipient.client, 'leave_group', { group_id });
  await call(sender.client, 'list_groups');
  return { channel_id, group_id, file_id, item };
}
