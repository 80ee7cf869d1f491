import { SINGLETON_NAMES } from './domain/object-names.js';
import type { Env } from './env.js';

/**
 * Every Durable Object handle is built here. The three singletons are named once; an agent's
 * object is named by its agent ID and a channel's by its channel ID (`dm_…` or `grp_…`), so the
 * same ID always reaches the same object. Callers pass the whole `Env` or an object's own env.
 */
/** The one registry: hosts, agents, settings, administrators, the audit log. */
export function registry(env: Pick<Env, 'REGISTRY'>) {
  return env.REGISTRY.get(env.REGISTRY.idFromName(SINGLETON_NAMES.registry));
}

/** The one retention object: upload admission, staged objects, channel catalog, cleanup runs. */
export function retention(env: Pick<Env, 'RETENTION'>) {
  return env.RETENTION.get(env.RETENTION.idFromName(SINGLETON_NAMES.retention));
}

/** The one group catalog: versioned snapshots of every group for the administrators' list. */
export function groupCatalog(env: Pick<Env, 'GROUPS'>) {
  return env.GROUPS.get(env.GROUPS.idFromName(SINGLETON_NAMES.groups));
}

/** An agent's own object: its key, addresses, inbox index and refused requests. */
export function agentObject(env: Pick<Env, 'AGENT'>, agentId: string) {
  return env.AGENT.get(env.AGENT.idFromName(agentId));
}

/** A channel's object (a direct pair or a group): its messages, deliveries and claims. */
export function channelObject(env: Pick<Env, 'CHANNEL'>, channelId: string) {
  return env.CHANNEL.get(env.CHANNEL.idFromName(channelId));
}
