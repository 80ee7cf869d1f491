/**
 * Stale inbox hints, cleared on the agent's next request instead of in a call of their own.
 *
 * A poll that finds a channel with nothing unread for the agent must clear that channel's hint in
 * the agent's index (compare-and-delete on the generation it read, inbox-index.ts), or every later
 * poll asks the channel again. That clear used to be a third call to the agent's object in the
 * poll; it now waits here and rides on the agent's next authentication, which applies it before it
 * reads the pending list. The generation makes the delay harmless: a note that arrives meanwhile
 * bumps it, and the clear then leaves the hint alone, as it would have at once.
 *
 * This is per isolate and in memory. A clear lost with its isolate (or dropped by the bound below)
 * only leaves a hint set: the next poll asks that channel once more, finds it empty and clears it
 * then, as before this existed. Nothing here is ever needed for a correct answer.
 */
import type { PendingChannel } from '../../core/rpc.js';

export type HintClear = Pick<PendingChannel, 'channel_id' | 'gen'>;

/** Agents with clears waiting, and clears per agent: past either bound the oldest are dropped. */
const MAX_AGENTS = 1_000;
const MAX_PER_AGENT = 256;

const waiting = new Map<string, Map<string, number>>();

export function deferClears(agentId: string, clears: readonly HintClear[]): void {
  if (clears.length === 0) return;
  let entries = waiting.get(agentId);
  if (!entries) {
    if (waiting.size >= MAX_AGENTS) waiting.delete(waiting.keys().next().value as string);
    entries = new Map();
    waiting.set(agentId, entries);
  }
  for (const { channel_id, gen } of clears) {
    // Two polls may both find the channel empty: the later read's generation is the one that can match.
    entries.set(channel_id, Math.max(gen, entries.get(channel_id) ?? gen));
    if (entries.size > MAX_PER_AGENT) entries.delete(entries.keys().next().value as string);
  }
}

/** The clears waiting for this agent, handed over once: the authentication call applies them. */
export function takeClears(agentId: string): HintClear[] {
  const entries = waiting.get(agentId);
  if (!entries) return [];
  waiting.delete(agentId);
  return [...entries].map(([channel_id, gen]) => ({ channel_id, gen }));
}
