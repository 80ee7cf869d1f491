import type * as ops from '../../core/contract/operations/admin-bulk.js';
import { currentSettings } from '../../core/lib/settings-cache.js';
import { registry, retention } from '../../core/stubs.js';
import type { Handler } from './types.js';

/** The one-agent operation each bulk action amounts to: its audit entries read like that one's. */
const SINGLE_ACTION = {
  disable: 'updateAgent',
  enable: 'updateAgent',
  regenerate_key: 'regenerateAgentKey',
  revoke_key: 'revokeAgentKey',
  delete: 'deleteAgent',
} as const;

/** POST /admin/agents/bulk: each agent all-or-nothing, one audit entry per agent. */
export const bulkAgentsHandler: Handler<typeof ops.bulkAgents> = async ({ env, input, c }) => {
  const { action, agent_ids } = input.body;
  const results = await registry(env).bulkAgents(action, agent_ids);
  c.set(
    'auditItems',
    results.map((r) => ({
      action: SINGLE_ACTION[action],
      targets: [r.agent_id],
      ...(r.name !== undefined && { names: { [r.agent_id]: r.name } }),
      outcome: r.status === 'rejected' ? (r.error?.code ?? 'internal_error') : r.status === 'done' ? 'ok' : 'pending',
    })),
  );
  return { results };
};

/** POST /admin/agents/import: all or nothing; one createAgent audit entry per agent created. */
export const importAgentsHandler: Handler<typeof ops.importAgents> = async ({ env, input, c }) => {
  const agents = await registry(env).importAgents(input.body.agents);
  c.set(
    'auditItems',
    agents.map((a) => ({
      action: 'createAgent',
      targets: [a.agent.agent_id, a.agent.host_id],
      outcome: a.pending ? 'pending' : 'ok',
    })),
  );
  return { agents };
};

/** POST /admin/settings/preview: the limits after the patch, against the catalog's figures. */
export const previewSettingsHandler: Handler<typeof ops.previewSettings> = async ({ env, input }) => {
  const { limits } = await currentSettings(env);
  const next = { ...limits, ...input.body };
  return {
    deletes: await retention(env).previewLimits(next.max_messages_per_channel, next.max_files_per_channel),
  };
};
