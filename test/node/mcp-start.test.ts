/**
 * The pieces of `switchboard mcp`'s start: the stdio framing (an oversize line is skipped in
 * bounded memory and its request id still found), the quick reading of the command line, and
 * the capabilities both servers announce. The whole path over stdio: test/e2e/mcp-stdio-start.test.ts.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { describe, expect, it } from 'vitest';
import { quickRoute } from '../../cli/quick-route.js';
import { buildRemoteServer } from '../../mcp/remote.js';
import { buildServer } from '../../mcp/server.js';
import { type LineEvent, LineReader, TopLevelIdScanner } from '../../mcp/stdio-lines.js';

const idOf = (text: string, pieces = 1) => {
  const scanner = new TopLevelIdScanner();
  const bytes = Buffer.from(text);
  const size = Math.ceil(bytes.length / pieces);
  for (let i = 0; i < bytes.length; i += size) scanner.feed(bytes.subarray(i, i + size));
  return scanner.id;
};

describe('stdio framing', () => {
  it('finds the top-level id wherever it is, whatever nests around it', () => {
    expect(idOf('{"jsonrpc":"2.0","id":7,"method":"x"}')).toBe(7);
    expect(idOf('{"method":"x","params":{"id":1,"s":"\\"id\\":2,"},"id":"a,\\"b}"}', 5)).toBe('a,"b}');
    expect(idOf('{"params":{"list":[{"id":3}]},"id" : 42 }', 3)).toBe(42);
    expect(idOf('{"params":{"id":3}}')).toBeNull();
    expect(idOf('{"idx":1,"i":2}')).toBeNull();
    expect(idOf('[{"id":1}]')).toBeNull();
    expect(idOf('{"id":1.5}')).toBeNull();
    expect(idOf('{"id":{"a":1}}')).toBeNull();
  });

  it('splits lines across chunks and skips a line over the limit, keeping the next', () => {
    const events: LineEvent[] = [];
    const reader = new LineReader((event) => events.push(event), 64);
    reader.push(Buffer.from('{"a":1}\r\n{"b"'));
    reader.push(Buffer.from(':2}\n{"id":9,"x":"'));
    for (let i = 0; i < 10; i++) reader.push(Buffer.from('y'.repeat(50)));
    reader.push(Buffer.from('"}\n{"c":3}\n'));
    expect(events).toEqual([
      { kind: 'line', text: '{"a":1}' },
      { kind: 'line', text: '{"b":2}' },
      { kind: 'oversize', bytes: 515, id: 9 },
      { kind: 'line', text: '{"c":3}' },
    ]);
  });
});

describe('the quick command line', () => {
  it('takes --version, mcp with its documented options and a bare inbox, and leaves everything else to commander', () => {
    expect(quickRoute(['--version'])).toEqual({ kind: 'version' });
    expect(quickRoute(['-V'])).toEqual({ kind: 'version' });
    expect(quickRoute(['mcp'])).toEqual({ kind: 'mcp', allowDirs: [] });
    expect(quickRoute(['--profile', 'claude', 'mcp', '--allow-dir', '/a', '--allow-dir=/b'])).toEqual({
      kind: 'mcp',
      profile: 'claude',
      allowDirs: ['/a', '/b'],
    });
    expect(quickRoute(['mcp', '--profile=codex'])).toEqual({ kind: 'mcp', profile: 'codex', allowDirs: [] });
    expect(quickRoute(['inbox'])).toEqual({ kind: 'inbox' });
    expect(quickRoute(['--profile', 'pi', 'inbox'])).toEqual({ kind: 'inbox', profile: 'pi' });
    expect(quickRoute(['inbox', '--profile=pi'])).toEqual({ kind: 'inbox', profile: 'pi' });
    for (const args of [
      [],
      ['inbox', '--kind', 'group'],
      ['inbox', '--allow-dir', '/a'],
      ['inbox', 'mcp'],
      ['mcp', 'inbox'],
      ['inbox', '--help'],
      ['--version', 'mcp'],
      ['mcp', '--help'],
      ['mcp', 'extra'],
      ['mcp', '--allow-dir'],
      ['--allow-dir', '/a', 'mcp'],
      ['--profile', 'a', '--profile', 'b', 'mcp'],
      ['--profile', '--x', 'mcp'],
      ['--profile=', 'mcp'],
    ]) {
      expect(quickRoute(args), args.join(' ')).toEqual({ kind: 'full' });
    }
  });
});

describe('capabilities', () => {
  async function capabilities(server: McpServer) {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'capabilities-test', version: '1.0.0' });
    await client.connect(clientSide);
    const announced = client.getServerCapabilities();
    await client.close();
    return announced;
  }

  it('neither server announces a tool list that changes: it never does while a server runs', async () => {
    const local = await capabilities(await buildServer({ env: { SWITCHBOARD_CONFIG: '/nonexistent/config.json' } }));
    const remote = await capabilities(
      buildRemoteServer(async () => {
        throw new Error('no API call expected');
      }),
    );
    for (const announced of [local, remote]) {
      expect(announced?.tools).toBeDefined();
      expect(announced?.tools?.listChanged).not.toBe(true);
    }
  });
});
