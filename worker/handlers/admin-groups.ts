/** The administrator's group routes: the catalog list, owner reassignment and dissolution. */
import { ApiError } from '../../core/contract/errors.js';
import type { adminListGroups, dissolveGroup, reassignGroupOwner } from '../../core/contract/operations/groups.js';
import type { Env } from '../../core/env.js';
import { pageSize } from '../../core/lib/cursor.js';
import { currentSettings } from '../../core/lib/settings-cache.js';
import { channelObject, groupCatalog, registry, retention } from '../../core/stubs.js';
import type { Handler } from './types.js';

export const adminListGroupsHandler: Handler<typeof adminListGroups> = async ({ env, input }) => {
  const { limits } = await currentSettings(env);
  const { owner, participant, cursor, limit } = input.query;
  const page = await groupCatalog(env).list({ owner, participant }, cursor, pageSize(limit, limits.max_page_size));
  // The names of the page's agents in one registry call (a page holds at most max_page_size groups).
  const ids = new Set(page.groups.flatMap((g) => [g.owner_id, ...g.members.map((m) => m.agent_id)]));
  const agents = ids.size === 0 ? [] : await registry(env).getAgents([...ids]);
  return { ...page, agents: agents.map(({ agent_id, name, display_name }) => ({ agent_id, name, display_name })) };
};

/**
 * Every group registers in the retention catalog when it is created: an ID the catalog does not
 * know is refused as the group would refuse it, without opening (and so creating) a channel object.
 */
async function requireCataloged(env: Env, groupId: string): Promise<void> {
  if (!(await retention(env).catalogHas(groupId))) {
    throw new ApiError('not_found', 'No such group.', { target: groupId });
  }
}

export const reassignGroupOwnerHandler: Handler<typeof reassignGroupOwner> = async ({ env, input }) => {
  await requireCataloged(env, input.params.group_id);
  const target = await registry(env).getAgent(input.body.agent_id);
  if (target && !target.enabled) {
    throw new ApiError('agent_disabled', 'A disabled account cannot become a group owner; enable it first.', {
      field: 'agent_id',
      target: input.body.agent_id,
    });
  }
  return {
    group: await channelObject(env, input.params.group_id).reassignOwner(input.params.group_id, input.body.agent_id),
  };
};

export const dissolveGroupHandler: Handler<typeof dissolveGroup> = async ({ env, input }) => {
  await requireCataloged(env, input.params.group_id);
  await channelObject(env, input.params.group_id).dissolve(input.params.group_id);
  return { group_id: input.params.group_id, status: 'dissolved' as const };
};
