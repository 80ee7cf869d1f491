import * as admin from './admin.js';
import * as adminAgent from './admin-agent.js';
import * as adminBulk from './admin-bulk.js';
import * as adminChannels from './admin-channels.js';
import * as adminConsole from './admin-console.js';
import { downloadAdminChannelFileHandler } from './admin-files.js';
import * as adminGroups from './admin-groups.js';
import * as admins from './admins.js';
import { downloadFileHandler, listChannelFilesHandler } from './files.js';
import * as groups from './groups.js';
import * as identity from './identity.js';
import { ackMessagesHandler } from './messaging/ack.js';
import { listChannelsHandler, listMessagesHandler } from './messaging/channels.js';
import { extendClaimsHandler } from './messaging/extend.js';
import { claimMessagesHandler, getInboxHandler } from './messaging/inbox.js';
import { releaseClaimsHandler } from './messaging/release.js';
import { searchMessagesHandler } from './messaging/search.js';
import { sendDirectHandler } from './messaging/send.js';
import * as metrics from './metrics.js';
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
  deleteAgent: admin.deleteAgentHandler,
  bulkAgents: adminBulk.bulkAgentsHandler,
  importAgents: adminBulk.importAgentsHandler,
  previewSettings: adminBulk.previewSettingsHandler,
  getAdminAgent: adminAgent.getAdminAgentHandler,
  listAgentRejections: adminAgent.listAgentRejectionsHandler,
  getSettings: admin.getSettingsHandler,
  updateSettings: admin.updateSettingsHandler,
  getCleanup: admin.getCleanupHandler,
  getOverview: adminConsole.getOverviewHandler,
  getFleet: adminConsole.getFleetHandler,
  listAdminChannels: adminChannels.listAdminChannelsHandler,
  listAdminChannelMessages: adminChannels.listAdminChannelMessagesHandler,
  downloadAdminChannelFile: downloadAdminChannelFileHandler,
  listChannels: listChannelsHandler,
  sendDirect: sendDirectHandler,
  getInbox: getInboxHandler,
  claimMessages: claimMessagesHandler,
  ackMessages: ackMessagesHandler,
  extendClaims: extendClaimsHandler,
  releaseClaims: releaseClaimsHandler,
  listMessages: listMessagesHandler,
  searchMessages: searchMessagesHandler,
  listChannelFiles: listChannelFilesHandler,
  downloadFile: downloadFileHandler,
  listGroups: groups.listGroupsHandler,
  createGroup: groups.createGroupHandler,
  getGroup: groups.getGroupHandler,
  inviteToGroup: groups.inviteToGroupHandler,
  joinGroup: groups.joinGroupHandler,
  leaveGroup: groups.leaveGroupHandler,
  sendGroupMessage: groups.sendGroupMessageHandler,
  adminListGroups: adminGroups.adminListGroupsHandler,
  reassignGroupOwner: adminGroups.reassignGroupOwnerHandler,
  dissolveGroup: adminGroups.dissolveGroupHandler,
  listAdmins: admins.listAdminsHandler,
  createAdmin: admins.createAdminHandler,
  updateAdmin: admins.updateAdminHandler,
  deleteAdmin: admins.deleteAdminHandler,
  changeAdminPassword: admins.changeAdminPasswordHandler,
  listAdminSessions: admins.listAdminSessionsHandler,
  endAdminSession: admins.endAdminSessionHandler,
  listAuditLog: admins.listAuditLogHandler,
  createMetricsToken: metrics.createMetricsTokenHandler,
  deleteMetricsToken: metrics.deleteMetricsTokenHandler,
};
