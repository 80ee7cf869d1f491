/** `switchboard hook`'s pure parts: the hook input it accepts and the answer for each event. */
import { describe, expect, it } from 'vitest';
import { hookOutput, noticeText, parseEvery, parseHookInput } from '../../cli/commands/hook.js';

const counts = {
  claimable: 3,
  channels: [
    { kind: 'private', claimable: 2 },
    { kind: 'group', claimable: 1 },
    { kind: 'private', claimable: 0 },
  ],
};

describe('switchboard hook', () => {
  it('reads the event and stop_hook_active from the hook input; empty input is plain text', () => {
    expect(parseHookInput('')).toEqual({ stopHookActive: false });
    expect(parseHookInput('{"hook_event_name":"Stop","stop_hook_active":true,"session_id":"x"}')).toEqual({
      event: 'Stop',
      stopHookActive: true,
    });
    expect(parseHookInput('{"hook_event_name":"BeforeAgent","prompt":"hi"}').event).toBe('BeforeAgent');
  });

  it('refuses what is not a hook input of an event it answers', () => {
    expect(() => parseHookInput('nope')).toThrow(/not JSON/);
    expect(() => parseHookInput('null')).toThrow(/one JSON object/);
    expect(() => parseHookInput('{"hook_event_name":"PreToolUse"}')).toThrow(/PreToolUse/);
    expect(() => parseHookInput(`"${'x'.repeat(1_000_001)}"`)).toThrow(/more than/);
    expect(() => parseEvery('-1')).toThrow(/whole number/);
    expect(() => parseEvery('1e3')).toThrow(/whole number/);
    expect(parseEvery(undefined)).toBe(300);
    expect(parseEvery('0')).toBe(0);
  });

  it('counts channels in the notice and answers each event in its format', () => {
    const notice = noticeText(counts);
    expect(notice).toMatch(/^Switchboard: 3 unread messages waiting for you \(1 private channel, 1 group\)\./);
    expect(JSON.parse(hookOutput({ event: 'UserPromptSubmit', stopHookActive: false }, notice))).toEqual({
      hookSpecificOutput: { hookEventName: 'UserPromptSubmit', additionalContext: notice },
    });
    expect(JSON.parse(hookOutput({ event: 'AfterAgent', stopHookActive: false }, notice))).toEqual({
      decision: 'block',
      reason: notice,
    });
    expect(hookOutput({ stopHookActive: false }, notice)).toBe(notice);
  });
});
