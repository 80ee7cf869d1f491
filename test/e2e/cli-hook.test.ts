/**
 * `switchboard hook` against the real server: the notice in each client's hook format, nothing
 * when nothing is claimable, one notice per profile per interval, never a claim, and bad input
 * refused before anything is read or written.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNoStack, runCli, tempConfig } from './cli-process.js';
import { api, type Server, startWithAliceAndBob, type TestAgent } from './harness.js';

let server: Server;
let alice: TestAgent;
let bob: TestAgent;

const env = (config: string, key = alice.key) => ({
  SWITCHBOARD_CONFIG: config,
  SWITCHBOARD_URL: server.url,
  SWITCHBOARD_API_KEY: key,
});
const hook = (config: string, input: unknown, args: string[] = [], key?: string) =>
  runCli(['hook', ...args], {
    env: env(config, key),
    input: typeof input === 'string' ? input : JSON.stringify(input),
  });
const inbox = async () => (await api(server, 'GET', '/inbox', { key: alice.key })).body;

beforeAll(async () => {
  ({ server, alice, bob } = await startWithAliceAndBob());
});
afterAll(async () => {
  await server?.stop();
});

describe('switchboard hook', () => {
  it('prints nothing while nothing is claimable', async () => {
    const config = tempConfig();
    const run = await hook(config, { hook_event_name: 'UserPromptSubmit', prompt: 'hi' });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('');
    expect(existsSync(join(dirname(config), 'hook-state.json'))).toBe(false);
  });

  it('answers each event in its format, claims nothing, and is quiet within the interval', async () => {
    for (const body of ['one', 'two']) {
      const sent = await api(server, 'POST', '/messages/direct', {
        key: bob.key,
        body: { to_agent_ids: [alice.agent.agent_id], body },
      });
      expect(sent.status).toBe(200);
    }
    const before = await inbox();
    expect(before.claimable).toBe(2);

    const config = tempConfig();
    const start = await hook(config, { hook_event_name: 'SessionStart', source: 'startup' });
    expect(start.code, start.stderr).toBe(0);
    expect(start.json).toEqual({
      hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: expect.stringContaining('2 unread') },
    });
    expect(start.json.hookSpecificOutput.additionalContext).toContain('claim_messages');

    // Same profile, same count, inside the interval: quiet.
    const again = await hook(config, { hook_event_name: 'UserPromptSubmit', prompt: 'go' });
    expect(again.code).toBe(0);
    expect(again.stdout).toBe('');

    // --every 0: every time; stop events ask the client to go on, unless it already does.
    const stop = await hook(config, { hook_event_name: 'Stop', stop_hook_active: false }, ['--every', '0']);
    expect(stop.json).toEqual({ decision: 'block', reason: expect.stringContaining('2 unread') });
    const afterAgent = await hook(config, { hook_event_name: 'AfterAgent', stop_hook_active: false }, ['--every', '0']);
    expect(afterAgent.json.decision).toBe('block');
    const looping = await hook(config, { hook_event_name: 'Stop', stop_hook_active: true }, ['--every', '0']);
    expect(looping.stdout).toBe('');
    const beforeAgent = await hook(config, { hook_event_name: 'BeforeAgent', prompt: 'x' }, ['--every', '0']);
    expect(beforeAgent.json.hookSpecificOutput.hookEventName).toBe('BeforeAgent');

    // No hook input (a terminal or a script): one plain line.
    const plain = await hook(config, '', ['--every', '0']);
    expect(plain.stdout).toMatch(/^Switchboard: 2 unread messages waiting for you \(1 private channel\)\./);

    // More mail inside the interval is news: noticed again.
    await api(server, 'POST', '/messages/direct', {
      key: bob.key,
      body: { to_agent_ids: [alice.agent.agent_id], body: 'three' },
    });
    const more = await hook(config, { hook_event_name: 'UserPromptSubmit', prompt: 'go' });
    expect(more.json.hookSpecificOutput.additionalContext).toContain('3 unread');

    // Nothing was claimed or read by any of it.
    const after = await inbox();
    expect(after).toMatchObject({ unread: 3, claimable: 3, leased: 0 });
    const state = JSON.parse(readFileSync(join(dirname(config), 'hook-state.json'), 'utf8'));
    expect(Object.keys(state)).toEqual(['default']);
  });

  it('refuses bad input with one clear line and changes nothing', async () => {
    const config = tempConfig();
    const cases: [unknown, string[], RegExp][] = [
      ['{not json', [], /hook input: not JSON/],
      ['[1]', [], /expected one JSON object/],
      [{ hook_event_name: 'PreToolUse' }, [], /event "PreToolUse" is not one this hook answers/],
      [{ hook_event_name: 7 }, [], /hook_event_name is not a string/],
      [{ hook_event_name: 'Stop' }, ['--every', 'soon'], /--every: a whole number of seconds/],
    ];
    for (const [input, args, message] of cases) {
      const run = await hook(config, input, args);
      expect(run.code, run.stderr).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(message);
      expectNoStack(run.stderr);
    }
    expect(existsSync(join(dirname(config), 'hook-state.json'))).toBe(false);
    expect((await inbox()).claimable).toBe(3);
  });

  it('a wrong key is our error on stderr, nothing on stdout', async () => {
    const config = tempConfig();
    const run = await hook(config, { hook_event_name: 'SessionStart' }, [], 'sbk_agt_wrong.nope');
    expect(run.code).toBe(3);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/unauthenticated \(HTTP 401\)/);
    expect(existsSync(join(dirname(config), 'hook-state.json'))).toBe(false);
  });
});
