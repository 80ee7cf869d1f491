/**
 * Local file paths of the MCP tools (issue 10, item 8): a peer's message can ask an agent to send
 * the Switchboard config file (every profile's API key) or to download over any path. The real
 * `switchboard mcp` over stdio, driven by the SDK's client against the real server, reads and
 * writes only under the allowed directories, never the config file or its directory, and refuses
 * symlinks, `..` and look-alike paths that leave the tree; nothing is sent or written then.
 */
import { linkSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv } from './cli-process.js';
import { CLI, type Server, startWithAliceAndBob, type TestAgent, tempDir } from './harness.js';

let server: Server;
let alice: TestAgent;
let bob: TestAgent;
const clients: Client[] = [];

/** One agent's machine: its working directory, a directory outside it, and its config directory. */
interface Machine {
  work: string;
  outside: string;
  configDir: string;
  configFile: string;
}

function machine(name: string, key: string): Machine {
  const base = tempDir(`switchboard-mcp-${name}-`);
  const m = {
    work: join(base, 'work'),
    outside: join(base, 'outside'),
    configDir: join(base, 'conf'),
    configFile: join(base, 'conf', 'config.json'),
  };
  for (const dir of [m.work, m.outside, m.configDir]) mkdirSync(dir);
  // The key lives in the config file, as after `switchboard login`: the file worth stealing.
  writeFileSync(
    m.configFile,
    `${JSON.stringify({ current: name, profiles: { [name]: { url: server.url, api_key: key } } }, null, 2)}\n`,
    { mode: 0o600 },
  );
  writeFileSync(join(m.outside, 'secret.txt'), 'not for peers');
  writeFileSync(join(m.configDir, 'notes.txt'), 'next to the keys');
  writeFileSync(join(m.work, 'report.txt'), 'the report');
  symlinkSync(join(m.outside, 'secret.txt'), join(m.work, 'innocent.txt'));
  symlinkSync(m.outside, join(m.work, 'docs'));
  symlinkSync(m.configFile, join(m.work, 'settings.json'));
  linkSync(m.configFile, join(m.work, 'backup.json'));
  symlinkSync('report.txt', join(m.work, 'latest.txt'));
  return m;
}

async function connect(m: Machine, options: { args?: string[]; env?: Record<string, string> } = {}): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', ...(options.args ?? [])],
    cwd: m.work,
    env: cliEnv({ SWITCHBOARD_CONFIG: m.configFile, ...options.env }) as Record<string, string>,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'switchboard-e2e-files', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

const structured = (result: CallToolResult) => result.structuredContent as Record<string, any>;
const text = (result: CallToolResult) => (result.content[0] as { text: string }).text;

function expectRefused(result: CallToolResult, label: string): void {
  expect(result.isError, `${label}: ${text(result)}`).toBe(true);
  expect(structured(result).error.code, label).toBe('path_not_allowed');
  expect(text(result), label).toMatch(/^Error path_not_allowed: /);
}

/** Every file and its content under the given directories, to prove nothing was written. */
function snapshot(...dirs: string[]): Record<string, string> {
  const files: Record<string, string> = {};
  for (const dir of dirs) {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      files[path] = entry.isFile() ? readFileSync(path, 'latin1') : entry.isSymbolicLink() ? 'link' : 'dir';
    }
  }
  return files;
}

let a: Machine;
let b: Machine;
let aliceClient: Client;
let bobClient: Client;

beforeAll(async () => {
  ({ server, alice, bob } = await startWithAliceAndBob());
  a = machine('alice', alice.key);
  b = machine('bob', bob.key);
  aliceClient = await connect(a);
  bobClient = await connect(b);
});
afterAll(async () => {
  for (const client of clients) await client.close();
  await server?.stop();
});

describe('MCP file_path and out_path stay in the allowed tree', () => {
  it('file_path at the config, its directory, outside, through symlinks or .. is refused; nothing is sent', async () => {
    const paths: [string, string][] = [
      ['the config file', a.configFile],
      ['a file next to the config', join(a.configDir, 'notes.txt')],
      ['the config directory itself', a.configDir],
      ['outside the working directory', join(a.outside, 'secret.txt')],
      ['.. out of the working directory', '../outside/secret.txt'],
      ['.. through the config directory', `${a.work}/../conf/config.json`],
      ['a symlink to a file outside', 'innocent.txt'],
      ['a symlinked directory leading outside', 'docs/secret.txt'],
      ['a symlink to the config', 'settings.json'],
      ['a hard link to the config', 'backup.json'],
      ['the config through /proc/self/root', `/proc/self/root${a.configFile}`],
      ['a right-to-left override', 'report\u202Etxt.exe'],
      ['a zero-width space', 'report\u200B.txt'],
    ];
    for (const [label, path] of paths) {
      const result = await call(aliceClient, 'send_message', {
        to_agent_ids: [bob.agent.agent_id],
        body: `please send ${label}`,
        file_path: path,
      });
      expectRefused(result, label);
    }
    // The group tool takes file_path through the same path: refused before anything is sent.
    expectRefused(
      await call(aliceClient, 'send_group_message', {
        group_id: 'grp_aaaaaaaaaaaaaaaaaaaaaa',
        body: 'the keys',
        file_path: a.configFile,
      }),
      'group send',
    );
    const refused = await call(aliceClient, 'send_message', {
      to_agent_ids: [bob.agent.agent_id],
      body: 'x',
      file_path: join(a.outside, 'secret.txt'),
    });
    expect(text(refused)).toContain('--allow-dir');
    expect(text(refused)).toContain('SWITCHBOARD_MCP_ALLOWED_DIRS');
    const config = await call(aliceClient, 'send_message', {
      to_agent_ids: [bob.agent.agent_id],
      body: 'x',
      file_path: a.configFile,
    });
    expect(text(config)).toMatch(/API keys/);

    // Nothing reached the server: no channel for alice, nothing unread for bob.
    expect(structured(await call(aliceClient, 'list_channels', {})).channels).toEqual([]);
    expect(structured(await call(bobClient, 'check_inbox', {}))).toMatchObject({ unread: 0 });
  });

  it('files under the working directory, also through an in-tree symlink, are sent and downloaded', async () => {
    for (const path of ['report.txt', join(a.work, 'latest.txt')]) {
      const sent = await call(aliceClient, 'send_message', {
        to_agent_ids: [bob.agent.agent_id],
        body: `the report via ${path}`,
        file_path: path,
      });
      expect(sent.isError, text(sent)).toBeFalsy();
      expect(structured(sent).results[0].status).toBe('sent');
    }
    const channelId = structured(await call(bobClient, 'list_channels', {})).channels[0].channel_id as string;
    const history = await call(bobClient, 'read_history', { channel_id: channelId, order: 'desc', limit: 1 });
    const fileId = structured(history).messages[0].attachment.file_id as string;
    const downloaded = await call(bobClient, 'download_file', { file_id: fileId, out_path: 'copy.txt' });
    expect(downloaded.isError, text(downloaded)).toBeFalsy();
    expect(structured(downloaded).path).toBe(join(b.work, 'copy.txt'));
    expect(readFileSync(join(b.work, 'copy.txt'), 'utf8')).toBe('the report');
  });

  it('out_path outside, over or next to the config, through symlinks or .. is refused; nothing is written', async () => {
    const channelId = structured(await call(bobClient, 'list_channels', {})).channels[0].channel_id as string;
    const history = await call(bobClient, 'read_history', { channel_id: channelId, order: 'desc', limit: 1 });
    const fileId = structured(history).messages[0].attachment.file_id as string;
    const before = snapshot(b.work, b.outside, b.configDir);
    const targets: [string, string, boolean][] = [
      ['over the config file', b.configFile, true],
      ['a new file in the config directory', join(b.configDir, 'keys.json'), false],
      ['outside the working directory', join(b.outside, 'dropped.txt'), false],
      ['.. out of the working directory', '../outside/dropped.txt', false],
      ['a symlinked directory leading outside', 'docs/dropped.txt', false],
      ['over a symlink to the config', 'settings.json', true],
      ['over a symlink to a file outside', 'innocent.txt', true],
      ['over a hard link to the config', 'backup.json', true],
      ['a home-style dotfile path outside', join(b.outside, '.bashrc'), true],
    ];
    for (const [label, outPath, overwrite] of targets) {
      expectRefused(await call(bobClient, 'download_file', { file_id: fileId, out_path: outPath, overwrite }), label);
    }
    expect(snapshot(b.work, b.outside, b.configDir)).toEqual(before);
    expect(JSON.parse(readFileSync(b.configFile, 'utf8')).profiles.bob.api_key).toBe(bob.key);
  });

  it('--allow-dir and SWITCHBOARD_MCP_ALLOWED_DIRS widen the tree (replacing the default), never to the config', async () => {
    const secret = join(a.outside, 'secret.txt');
    const flagged = await connect(a, { args: ['--allow-dir', a.outside] });
    const sent = await call(flagged, 'send_message', {
      to_agent_ids: [bob.agent.agent_id],
      body: 'allowed on purpose',
      file_path: secret,
    });
    expect(sent.isError, text(sent)).toBeFalsy();
    expect(structured(sent).results[0].status).toBe('sent');
    // The setting replaces the working directory: list it too to keep it.
    expectRefused(
      await call(flagged, 'send_message', { to_agent_ids: [bob.agent.agent_id], body: 'x', file_path: 'report.txt' }),
      'cwd no longer allowed',
    );

    const channelId = structured(sent).results[0].channel_id as string;
    const history = await call(bobClient, 'read_history', { channel_id: channelId, order: 'desc', limit: 1 });
    const fileId = structured(history).messages[0].attachment.file_id as string;
    const bobWide = await connect(b, { env: { SWITCHBOARD_MCP_ALLOWED_DIRS: [b.outside, b.work].join(delimiter) } });
    const saved = await call(bobWide, 'download_file', {
      file_id: fileId,
      out_path: join(b.outside, 'from-alice.txt'),
    });
    expect(saved.isError, text(saved)).toBeFalsy();
    expect(readFileSync(join(b.outside, 'from-alice.txt'), 'utf8')).toBe('not for peers');

    // Allowing the config's directory, or a parent of it, still never reaches the config.
    const parent = join(a.configDir, '..');
    const everything = await connect(a, { args: ['--allow-dir', parent, '--allow-dir', a.configDir] });
    for (const path of [a.configFile, join(a.configDir, 'notes.txt'), 'settings.json', 'backup.json']) {
      expectRefused(
        await call(everything, 'send_message', { to_agent_ids: [bob.agent.agent_id], body: 'x', file_path: path }),
        path,
      );
    }
    const before = readFileSync(a.configFile, 'utf8');
    expectRefused(
      await call(everything, 'download_file', { file_id: fileId, out_path: a.configFile, overwrite: true }),
      'download over the config',
    );
    expect(readFileSync(a.configFile, 'utf8')).toBe(before);
  });
});
