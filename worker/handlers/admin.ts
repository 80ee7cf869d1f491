import type { Context } from 'hono';
import { deleteCookie, setCookie } from 'hono/cookie';
import type * as ops from '../../core/contract/operations/admin.js';
import { SESSION_ABSOLUTE_MS } from '../../core/domain/admin-session.js';
import { pageSize } from '../../core/lib/cursor.js';
import { currentSettings, rememberSettings } from '../../core/lib/settings-cache.js';
import { registry, retention } from '../../core/stubs.js';
import { SESSION_COOKIE } from '../middleware/auth.js';
import type { AppEnv, Handler } from './types.js';

function setSessionCookie(c: Context<AppEnv>, token: string): void {
  setCookie(c, SESSION_COOKIE, token, {
    httpOnly: true,
    sameSite: 'Strict',
    secure: new URL(c.req.url).protocol === 'https:',
    path: '/',
    maxAge: Math.floor(SESSION_ABSOLUTE_MS / 1000),
  });
}

export const adminLoginHandler: Handler<typeof ops.adminLogin> = async ({ env, input, c, clientIp }) => {
  const userAgent = c.req.header('user-agent') ?? '';
  const { token, session } = await registry(env).login(input.body.username, input.body.password, clientIp, userAgent);
  setSessionCookie(c, token);
  return { username: session.username, expires_at: session.expires_at };
};

export const adminLogoutHandler: Handler<typeof ops.adminLogout> = async ({ env, admin, c }) => {
  await registry(env).endSession(admin.sessionHash);
  deleteCookie(c, SESSION_COOKIE, { path: '/' });
  return { ok: true as const };
};

export const adminSessionHandler: Handler<typeof ops.adminSession> = async ({ admin }) => ({
  username: admin.username,
  expires_at: admin.expires_at,
});

export const adminSetupStatusHandler: Handler<typeof ops.adminSetupStatus> = async ({ env }) => ({
  needs_setup: await registry(env).needsSetup(),
});

export const adminSetupHandler: Handler<typeof ops.adminSetup> = async ({ env, input, c, clientIp }) => {
  const { token, username, password } = input.body;
  const opened = await registry(env).setupAdmin(token, username, password, clientIp, c.req.header('user-agent') ?? '');
  setSessionCookie(c, opened.token);
  return { username: opened.session.username, expires_at: opened.session.expires_at };
};

export const listHostsHandler: Handler<typeof ops.listHosts> = async ({ env, input }) => {
  const { limits } = await currentSettings(env);
  return registry(env).listHosts(input.query.cursor, pageSize(input.query.limit, limits.max_page_size));
};

export const createHostHandler: Handler<typeof ops.createHost> = async ({ env, input }) => ({
  host: await registry(env).createHost(input.body),
});

export const updateHostHandler: Handler<typeof ops.updateHost> = async ({ env, input, c }) => {
  const { host, changes } = await registry(env).updateHost(input.params.host_id, input.body);
  c.set('auditChanges', changes);
  return { host };
};

export const deleteHostHandler: Handler<typeof ops.deleteHost> = async ({ env, input, c }) => {
  const { name } = await registry(env).deleteHost(input.params.host_id);
  c.set('auditNames', { [input.params.host_id]: name });
  return { ok: true as const };
};

export const listAgentsHandler: Handler<typeof ops.listAgents> = async ({ env, input }) => {
  const { limits } = await currentSettings(env);
  const { cursor, limit, ...query } = input.query;
  const page = await registry(env).listAgents(query, cursor, pageSize(limit, limits.max_page_size));
  // One call for the page's backlog, from the channel catalog: no agent or channel object is asked.
  const found = new Map(
    (await retention(env).agentBacklog(page.agents.map((a) => a.agent_id))).map((b) => [b.agent_id, b]),
  );
  const backlog = Object.fromEntries(
    page.agents.map((a) => {
      const b = found.get(a.agent_id);
      return [
        a.agent_id,
        {
          unread: b?.unread ?? 0,
          leased: b?.leased ?? 0,
          parked: b?.parked ?? 0,
          oldest_unread_at: b?.oldest_unread_at ? new Date(b.oldest_unread_at).toISOString() : null,
        },
      ];
    }),
  );
  return { ...page, backlog };
};

export const createAgentHandler: Handler<typeof ops.createAgent> = async ({ env, input }) =>
  registry(env).createAgent(input.body);

export const updateAgentHandler: Handler<typeof ops.updateAgent> = async ({ env, input, c }) => {
  const { agent, changes } = await registry(env).updateAgent(input.params.agent_id, input.body);
  c.set('auditChanges', changes);
  return { agent };
};

export const deleteAgentHandler: Handler<typeof ops.deleteAgent> = async ({ env, input, c }) => {
  const { name } = await registry(env).deleteAgent(input.params.agent_id);
  c.set('auditNames', { [input.params.agent_id]: name });
  return { ok: true as const };
};

export const regenerateAgentKeyHandler: Handler<typeof ops.regenerateAgentKey> = async ({ env, input }) => ({
  api_key: await registry(env).regenerateKey(input.params.agent_id),
});

export const revokeAgentKeyHandler: Handler<typeof ops.revokeAgentKey> = async ({ env, input }) => {
  await registry(env).revokeKey(input.params.agent_id);
  return { ok: true as const };
};

/** The retention object answers for cleanup runs and deletion jobs (durable-objects/retention). */
function cleanupStatus(env: AppEnv['Bindings']) {
  return retention(env).cleanupStatus();
}

export const getSettingsHandler: Handler<typeof ops.getSettings> = async ({ env }) => {
  const [{ limits, revision }, cleanup] = await Promise.all([registry(env).getSettings(), cleanupStatus(env)]);
  return { settings: limits, settings_revision: revision, cleanup };
};

/**
 * Lowering a retention limit starts retroactive cleanup. The retention object is told before the
 * change commits, so that a crash between the commit and the start still leads to a run (its
 * alarm then finds the new revision in the registry).
 */
export const updateSettingsHandler: Handler<typeof ops.updateSettings> = async ({ env, input, c }) => {
  const keeper = retention(env);
  await keeper.prepareSettingsChange();
  const { limits, revision, lowered, changes } = await registry(env).updateSettings(input.body);
  c.set('auditChanges', changes);
  rememberSettings({ limits, revision });
  const cleanup = await keeper.settingsChanged(revision, lowered);
  return { settings: limits, settings_revision: revision, cleanup };
};

export const getCleanupHandler: Handler<typeof ops.getCleanup> = async ({ env }) => cleanupStatus(env);
