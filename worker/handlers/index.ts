import * as admin from './admin.js';
import * as identity from './identity.js';
import type { HandlerMap } from './types.js';

/** Every registry operation's implementation, keyed by operation ID. */
export const handlers: HandlerMap = {
  getMe: identity.getMeHandler,
  listDirectory: identity.listDirectoryHandler,
  getLimits: identity.getLimitsHandler,
  adminLogin: admin.adminLoginHandler,
  adminLogout: admin.adminLogoutHandler,
  adminSession: admin.adminSessionHandler,
  adminSetupStatus: admin.adminSetupStatusHandler,
  adminSetup: admin.adminSetupHandler,
  listHosts: admin.listHostsHandler,
  createHost: admin.createHostHandler,
  updateHost: admin.updateHostHandler,
  deleteHost: admin.deleteHostHandler,
  listAgents: admin.listAgentsHandler,
  createAgent: admin.createAgentHandler,
  updateAgent: admin.updateAgentHandler,
  regenerateAgentKey: admin.regenerateAgentKeyHandler,
  revokeAgentKey: admin.revokeAgentKeyHandler,
  getSettings: admin.getSettingsHandler,
  updateSettings: admin.updateSettingsHandler,
  getCleanup: admin.getCleanupHandler,
};
