import type { getLimits, getMe, listDirectory } from '../../core/contract/operations/identity.js';
import { pageSize } from '../../core/lib/cursor.js';
import { derivedLimits, LIMIT_SEMANTICS } from '../../core/lib/limits.js';
import { currentSettings } from '../../core/lib/settings-cache.js';
import { registry } from '../../core/stubs.js';
import type { Handler } from './types.js';

/** What the calling agent may do; clients use it to discover features of this server. */
const CAPABILITIES = ['direct_messages', 'groups', 'files', 'claims', 'history'];

export const getMeHandler: Handler<typeof getMe> = async ({ agent }) => ({
  ...agent,
  capabilities: CAPABILITIES,
});

export const listDirectoryHandler: Handler<typeof listDirectory> = async ({ env, input }) => {
  const { limits } = await currentSettings(env);
  const { host_id, name, cursor, limit } = input.query;
  return registry(env).directory({ host_id, name }, cursor, pageSize(limit, limits.max_page_size));
};

export const getLimitsHandler: Handler<typeof getLimits> = async ({ env }) => {
  const { limits, revision } = await currentSettings(env);
  return {
    settings_revision: revision,
    limits: { ...limits, ...derivedLimits(limits) },
    semantics: LIMIT_SEMANTICS,
  };
};
