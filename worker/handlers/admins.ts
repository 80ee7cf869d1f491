import { deleteCookie } from 'hono/cookie';
import type * as ops from '../../core/contract/operations/admins.js';
import { pageSize } from '../../core/lib/cursor.js';
import { currentSettings } from '../../core/lib/settings-cache.js';
import { registry } from '../../core/stubs.js';
import { SESSION_COOKIE } from '../middleware/auth.js';
import type { Handler } from './types.js';

export const listAdminsHandler: Handler<typeof ops.listAdmins> = async ({ env }) => ({
  admins: await registry(env).listAdmins(),
});

export const createAdminHandler: Handler<typeof ops.createAdmin> = async ({ env, input }) => ({
  admin: await registry(env).createAdmin(input.body.username, input.body.password),
});

export const updateAdminHandler: Handler<typeof ops.updateAdmin> = async ({ env, input }) => ({
  admin: await registry(env).setAdminEnabled(input.params.username, input.body.enabled),
});

export const deleteAdminHandler: Handler<typeof ops.deleteAdmin> = async ({ env, input, admin, c }) => {
  await registry(env).deleteAdmin(input.params.username);
  // Deleting yourself (another administrator remains) ends your own session with the account.
  if (input.params.username === admin.username) deleteCookie(c, SESSION_COOKIE, { path: '/' });
  return { ok: true as const };
};

export const changeAdminPasswordHandler: Handler<typeof ops.changeAdminPassword> = async ({
  env,
  input,
  admin,
  clientIp,
}) => {
  const { ended_sessions } = await registry(env).changeAdminPassword({
    username: admin.username,
    sessionHash: admin.sessionHash,
    current: input.body.current_password,
    next: input.body.new_password,
    endOtherSessions: input.body.end_other_sessions,
    clientIp,
  });
  return { ok: true as const, ended_sessions };
};

export const listAdminSessionsHandler: Handler<typeof ops.listAdminSessions> = async ({ env, input, admin }) => ({
  sessions: await registry(env).listAdminSessions(input.query.username, admin.sessionHash),
});

export const endAdminSessionHandler: Handler<typeof ops.endAdminSession> = async ({ env, input, admin, c }) => {
  const { signed_out } = await registry(env).endAdminSessionById(input.params.session_id, admin.sessionHash);
  if (signed_out) deleteCookie(c, SESSION_COOKIE, { path: '/' });
  return { ok: true as const, signed_out };
};

export const listAuditLogHandler: Handler<typeof ops.listAuditLog> = async ({ env, input }) => {
  const { limits } = await currentSettings(env);
  const { cursor, limit, ...filter } = input.query;
  return registry(env).listAudit(filter, cursor, pageSize(limit, limits.max_page_size));
};
