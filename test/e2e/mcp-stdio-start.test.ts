/**
 * How `switchboard mcp` starts: the answers it gives before loading the full server are the full
 * server's own (so they cannot drift), an oversize line is answered and the session goes on, the
 * start-up check names what is wrong on stderr, and an explicit profile is not overridden in
 * silence by an inherited key. The built CLI over raw stdio, against the real server.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { askFullServer } from '../../mcp/listing.js';
import { cliEnv, runCli, tempConfig } from './cli-process.js';
import { CLI, createAgent, createHost, ROOT, type Server, startWithAliceAndBob, type TestAgent } from './harness.js';

type Message = Record<string, any>;

/** A raw JSON-RPC session with a `switchboard mcp` child. */
class Session {
  readonly child: ChildProcessWithoutNullStreams;
  stderr = '';
  private buffer = '';
  private readonly waiting = new Map<unknown, (message: Message) => void>();
  readonly exited: Promise<number | null>;

  constructor(env: Record<string, string | undefined>, args: string[] = []) {
    this.child = spawn(process.execPath, [CLI, ...args, 'mcp'], { cwd: ROOT, env: cliEnv(env) });
    this.child.stderr.setEncoding('utf8').on('data', (text: string) => {
      this.stderr += text;
    });
    this.child.stdout.setEncoding('utf8').on('data', (text: string) => {
      this.buffer += text;
      let end = this.buffer.indexOf('\n');
      while (end !== -1) {
        const message = JSON.parse(this.buffer.slice(0, end)) as Message;
        this.buffer = this.buffer.slice(end + 1);
        this.waiting.get(message.id)?.(message);
        this.waiting.delete(message.id);
        end = this.buffer.indexOf('\n');
      }
    });
    this.exited = new Promise((resolve) => this.child.on('exit', resolve));
  }

  /** Sends a line and waits for the answer with `id` (`expectId` when the line is not a request). */
  request(message: Message | string, expectId: unknown = (message as Message).id): Promise<Message> {
    const answer = new Promise<Message>((resolve) => this.waiting.set(expectId, resolve));
    this.child.stdin.write(`${typeof message === 'string' ? message : JSON.stringify(message)}\n`);
    return answer;
  }

  notify(message: Message): void {
    this.child.stdin.write(`${JSON.stringify(message)}\n`);
  }

  /** Waits until stderr has a line matching `pattern`. */
  async stderrLine(pattern: RegExp): Promise<string> {
    for (let i = 0; i < 300; i++) {
      const line = this.stderr.split('\n').find((l) => pattern.test(l));
      if (line) return line;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`no stderr line matching ${pattern}:\n${this.stderr}`);
  }

  async close(): Promise<void> {
    this.child.stdin.end();
    if ((await Promise.race([this.exited, new Promise((r) => setTimeout(() => r('late'), 10_000))])) === 'late') {
      this.child.kill('SIGKILL');
    }
  }
}

const initialize = (id: number, protocolVersion: string) => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { protocolVersion, capabilities: { roots: {} }, clientInfo: { name: 'e2e', version: '1' } },
});
const initialized = { jsonrpc: '2.0', method: 'notifications/initialized' };
const listTools = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/list' });
const callTool = (id: number, name: string, args: Message = {}) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args },
});

let server: Server;
let alice: TestAgent;
let bob: TestAgent;
let farAway: { key: string };
const sessions: Session[] = [];
const open = (env: Record<string, string | undefined>, args?: string[]) => {
  const session = new Session(env, args);
  sessions.push(session);
  return session;
};
const asAlice = () => ({
  SWITCHBOARD_CONFIG: tempConfig(),
  SWITCHBOARD_URL: server.url,
  SWITCHBOARD_API_KEY: alice.key,
});

beforeAll(async () => {
  const setup = await startWithAliceAndBob();
  ({ server, alice, bob } = setup);
  const { cookie } = setup;
  // An agent whose host is elsewhere: its key is right, this machine's address is not.
  farAway = await createAgent(server, cookie, (await createHost(server, cookie, ['10.99.0.7'])).host_id, 'far');
});
afterAll(async () => {
  for (const session of sessions) await session.close();
  await server?.stop();
});

describe('switchboard mcp: the first answers', () => {
  it('answers initialize, tools/list and ping exactly as the full server does, before and after a tool call', async () => {
    const versions = ['2025-06-18', '2024-11-05', '1999-01-01'];
    const expected = await askFullServer([
      ...versions.map((version, i) => initialize(i + 1, version)),
      initialized,
      listTools(10),
      { jsonrpc: '2.0', id: 11, method: 'ping' },
    ] as never);
    const byId = new Map(expected.map((answer) => [(answer as Message).id, answer]));
    // The tool list never changes while the server runs, so it is not announced as changing.
    expect((byId.get(1) as Message).result.capabilities.tools.listChanged).not.toBe(true);

    const session = open(asAlice());
    for (const [i, version] of versions.entries()) {
      expect(await session.request(initialize(i + 1, version))).toEqual(byId.get(i + 1));
    }
    session.notify(initialized);
    const listed = await session.request(listTools(10));
    // The same tools, each the same to the byte (the bundle may order the registry differently).
    const byName = (answer: Message) => new Map(answer.result.tools.map((t: Message) => [t.name, t]));
    expect(byName(listed)).toEqual(byName(byId.get(10) as Message));
    expect(await session.request({ jsonrpc: '2.0', id: 11, method: 'ping' })).toEqual(byId.get(11));

    // The first tool call hands over to the full server: it works, and the listing stays the same.
    const me = await session.request(callTool(12, 'whoami'));
    expect(me.result.isError).toBeFalsy();
    expect(me.result.structuredContent).toMatchObject({ agent_id: alice.agent.agent_id });
    expect({ ...(await session.request(listTools(13))), id: 10 }).toEqual(listed);
  });

  it('answers a line over 10 MiB with a JSON-RPC error for its id, and goes on', async () => {
    const session = open(asAlice());
    await session.request(initialize(1, '2025-06-18'));
    session.notify(initialized);
    const huge = JSON.stringify(
      callTool(2, 'send_message', { to_agent_ids: [bob.agent.agent_id], body: 'x'.repeat(11 * 1024 * 1024) }),
    );
    const refused = await session.request(huge, 2);
    expect(refused.error).toMatchObject({ code: -32600, message: expect.stringMatching(/too large/) });
    expect(await session.stderrLine(/refused a message of \d+ bytes/)).toBeTruthy();
    // The session is alive, and so is the full server behind it.
    expect((await session.request(listTools(3))).result.tools.length).toBeGreaterThan(0);
    const me = await session.request(callTool(4, 'whoami'));
    expect(me.result.structuredContent).toMatchObject({ agent_id: alice.agent.agent_id });
    // A line that is not JSON at all is answered too.
    expect((await session.request('{ not json', null)).error).toMatchObject({ code: -32700 });
    expect((await session.request({ jsonrpc: '2.0', id: 5, method: 'ping' })).result).toEqual({});
    expect(session.child.exitCode).toBeNull();
  });
});

describe('switchboard mcp: the start-up check', () => {
  /** Starts a session, lists the tools, and returns its check line and first tool call. */
  async function check(env: Record<string, string | undefined>, args?: string[]) {
    const session = open(env, args);
    await session.request(initialize(1, '2025-06-18'));
    session.notify(initialized);
    // The server starts whatever is wrong: the tools are listed, and the call shows the error.
    expect((await session.request(listTools(2))).result.tools.length).toBeGreaterThan(0);
    const line = await session.stderrLine(/connected to|start-up check failed|no profile|disagree|has no/);
    const call = await session.request(callTool(3, 'whoami'));
    return { line, call: call.result, stderr: session.stderr };
  }

  it('says who this is when all is well', async () => {
    const { line, call } = await check(asAlice());
    expect(line).toMatch(new RegExp(`connected to ${server.url} as alice \\(${alice.agent.agent_id}\\)`));
    expect(call.isError).toBeFalsy();
  });

  it('names a wrong key, an address the server refuses, an unreachable server and a missing profile', async () => {
    const wrongKey = await check({ ...asAlice(), SWITCHBOARD_API_KEY: `${alice.key.slice(0, -4)}AAAA` });
    expect(wrongKey.line).toMatch(/^switchboard mcp: start-up check failed .*: unauthenticated \(HTTP 401\)/);
    expect(wrongKey.call.structuredContent.error.code).toBe('unauthenticated');

    const address = await check({ ...asAlice(), SWITCHBOARD_API_KEY: farAway.key });
    expect(address.line).toMatch(/source_ip_denied \(HTTP 403\).*the server saw 127\.0\.0\.1/);
    expect(address.call.structuredContent.error.code).toBe('source_ip_denied');

    const closed = await check({ ...asAlice(), SWITCHBOARD_URL: 'http://127.0.0.1:9' });
    expect(closed.line).toMatch(/start-up check failed for http:\/\/127\.0\.0\.1:9: cannot reach .*connection refused/);
    expect(closed.call.structuredContent.error.code).toBe('unreachable');

    const missing = await check({ SWITCHBOARD_CONFIG: tempConfig(), SWITCHBOARD_PROFILE: 'claude' });
    expect(missing.line).toMatch(/no profile "claude"/);
    expect(missing.call.structuredContent.error.code).toBe('not_configured');
    // Each says it in one line.
    for (const run of [wrongKey, address, closed, missing]) {
      expect(run.stderr.split('\n').filter((l) => /check failed|no profile/.test(l))).toHaveLength(1);
    }
  });
});

describe('an explicit profile and an inherited key', () => {
  /** A config file with profile "bob"; the environment carries alice's key, as a shell would. */
  function inherited() {
    const config = tempConfig();
    writeFileSync(
      config,
      JSON.stringify({ current: 'bob', profiles: { bob: { url: server.url, api_key: bob.key } } }),
      { mode: 0o600 },
    );
    return { SWITCHBOARD_CONFIG: config, SWITCHBOARD_URL: server.url, SWITCHBOARD_API_KEY: alice.key };
  }

  it('CLI: --profile wins, SWITCHBOARD_PROFILE against SWITCHBOARD_API_KEY is refused, plain variables still work', async () => {
    const env = inherited();
    const flag = await runCli(['--profile', 'bob', 'me'], { env });
    expect(flag.code).toBe(0);
    expect(flag.json.agent_id).toBe(bob.agent.agent_id);
    const shown = await runCli(['--profile', 'bob', 'config', 'show'], { env });
    expect(shown.json).toMatchObject({ api_key_source: 'profile', ignored_env: ['SWITCHBOARD_API_KEY'] });

    const both = await runCli(['me'], { env: { ...env, SWITCHBOARD_PROFILE: 'bob' } });
    expect(both.code).toBe(2);
    expect(both.stdout).toBe('');
    expect(both.stderr).toMatch(/SWITCHBOARD_PROFILE=bob and SWITCHBOARD_API_KEY disagree/);

    // No explicit profile: the variables override the file's current profile, as documented.
    const plain = await runCli(['me'], { env });
    expect(plain.json.agent_id).toBe(alice.agent.agent_id);
    const noFile = await runCli(['me'], { env: { ...env, SWITCHBOARD_CONFIG: tempConfig() } });
    expect(noFile.json.agent_id).toBe(alice.agent.agent_id);
  });

  it('MCP: the refusal is the start-up line and the first call’s error; --profile says what it ignored', async () => {
    const env = inherited();
    const refused = await check2({ ...env, SWITCHBOARD_PROFILE: 'bob' });
    expect(refused.line).toMatch(/SWITCHBOARD_PROFILE=bob and SWITCHBOARD_API_KEY disagree/);
    expect(refused.call.structuredContent.error).toMatchObject({
      code: 'not_configured',
      message: expect.stringMatching(/SWITCHBOARD_PROFILE=bob and SWITCHBOARD_API_KEY/),
    });

    const flagged = await check2(env, ['--profile', 'bob']);
    expect(flagged.stderr).toMatch(/--profile bob wins over SWITCHBOARD_API_KEY \(ignored\)/);
    expect(flagged.call.structuredContent).toMatchObject({ agent_id: bob.agent.agent_id });
  });

  async function check2(env: Record<string, string | undefined>, args?: string[]) {
    const session = open(env, args);
    await session.request(initialize(1, '2025-06-18'));
    const line = await session.stderrLine(/disagree|connected to/);
    const call = await session.request(callTool(2, 'whoami'));
    return { line, call: call.result, stderr: session.stderr };
  }
});
