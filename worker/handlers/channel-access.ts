/**
 * The gate in front of every channel object an agent request opens. A Durable Object is created
 * (with its SQLite database) the first time it is used, so a request naming a channel or group the
 * agent has never been in must be answered without opening it. Such an agent is a stranger to the
 * channel, and a stranger gets not_found (not_invited for join) whether the channel exists or not
 * (core/domain/groups.ts), so the gate answers exactly what the channel would have answered.
 *
 * The IDs in the path or query were already checked by the authentication call (requireAgent sets
 * `channelAccess`); IDs from a body (claim's channel_id, ACKed message IDs) cost one call to the
 * agent's own object.
 */
import type { Context } from 'hono';
import type { Env } from '../../core/env.js';
import { agentObject } from '../../core/stubs.js';
import type { AppEnv } from './types.js';

/** Those of `ids` the agent's index knows (a channel it is in, a group it is in, was invited to or left). */
export async function knownChannels(
  c: Context<AppEnv>,
  env: Env,
  agentId: string,
  ids: readonly string[],
): Promise<ReadonlySet<string>> {
  const checked = c.get('channelAccess');
  const known = new Set(ids.filter((id) => checked?.get(id) === true));
  const unchecked = [...new Set(ids.filter((id) => checked?.has(id) !== true))];
  if (unchecked.length > 0) {
    for (const id of await agentObject(env, agentId).knownChannels(unchecked)) known.add(id);
  }
  return known;
}

export async function isKnownChannel(c: Context<AppEnv>, env: Env, agentId: string, id: string): Promise<boolean> {
  return (await knownChannels(c, env, agentId, [id])).has(id);
}
