/**
 * What `switchboard mcp` answers before it has loaded anything heavy: the full server's own
 * answers to `initialize` and `tools/list`, recorded at build time (scripts/build-node.mjs) by
 * asking the real server, so they cannot differ from what it would say.
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { buildServer } from './server.js';

export interface StdioListing {
  /** The SDK's answer to `initialize` without `protocolVersion`, which depends on the request. */
  initialize: Record<string, unknown>;
  /** The protocol versions the SDK accepts (an unknown one is answered with the first, its latest). */
  protocolVersions: string[];
  /** The `tools/list` result. */
  tools: Record<string, unknown>;
}

/** Sends requests to a fresh full server in this process and returns its answers. */
export async function askFullServer(requests: readonly JSONRPCMessage[]): Promise<JSONRPCMessage[]> {
  const { InMemoryTransport } = await import('@modelcontextprotocol/sdk/inMemory.js');
  const server = await buildServer({ env: {}, files: { roots: [], source: 'flag', cwd: '/', configPath: '' } });
  const [client, serverSide] = InMemoryTransport.createLinkedPair();
  const answers: JSONRPCMessage[] = [];
  const expected = requests.filter((r) => 'id' in r).length;
  const done = new Promise<void>((resolve) => {
    client.onmessage = (message) => {
      answers.push(message);
      if (answers.length === expected) resolve();
    };
  });
  await server.connect(serverSide);
  await client.start();
  for (const request of requests) await client.send(request);
  await done;
  await server.close();
  return answers;
}

export async function recordListing(): Promise<StdioListing> {
  const { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } = await import('@modelcontextprotocol/sdk/types.js');
  const [init, list] = await askFullServer([
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: LATEST_PROTOCOL_VERSION,
        capabilities: {},
        clientInfo: { name: 'build', version: '0' },
      },
    },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 2, method: 'tools/list' },
  ]);
  const { protocolVersion: _, ...initialize } = (init as { result: Record<string, unknown> }).result;
  return {
    initialize,
    protocolVersions: [
      LATEST_PROTOCOL_VERSION,
      ...SUPPORTED_PROTOCOL_VERSIONS.filter((v) => v !== LATEST_PROTOCOL_VERSION),
    ],
    tools: (list as { result: Record<string, unknown> }).result,
  };
}
