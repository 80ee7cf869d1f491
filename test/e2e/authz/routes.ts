/**
 * One entry per operation of the registry for the authorization matrix: a request that would
 * succeed for the right caller (so a refusal can only come from who is asking), and the
 * "another agent's object" cells that apply to it. Typed as a record over every operation ID, so
 * a new operation is a compile error here until it gets its entry (and a test fails too).
 */
import type { OperationId } from '../../../core/contract/index.js';

/** The shared world the matrix runs in (see authz-matrix.test.ts). */
export interface World {
  /** Owner of `groupId`; sent `fileId` to b in `dmId`. */
  a: Actor;
  /** Active member of `groupId`; holds the claim `claimToken` on `messageId`. */
  b: Actor;
  /** An enabled agent on the same host that takes part in nothing. */
  c: Actor;
  /** The agent that administrator writes aim at, apart from the actors (so that a write that
   *  wrongly succeeds, a key replaced or revoked, cannot hide the result of other cells). */
  target: Actor;
  /** A group of A's, with B an active member, that ownership and dissolution cells aim at. */
  spareGroupId: string;
  hostId: string;
  /** A host no agent uses. */
  spareHostId: string;
  groupId: string;
  dmId: string;
  messageId: string;
  fileId: string;
  claimToken: string;
}

export interface Actor {
  id: string;
  key: string;
}

export interface Sample {
  /** Path parameters by name. */
  params?: Record<string, string>;
  /** Query string without the `?`. */
  query?: string;
  /** JSON body. */
  body?: unknown;
}

/** The refusal a cell expects: status and code, or a 200 whose every item is `rejected` with `code`. */
export type Expected = { status: number; code: string } | { itemsRejected: string };

export interface ForeignCell {
  /** What the cell tries, e.g. "C reads the history of A and B's private channel". */
  name: string;
  actor: 'a' | 'b' | 'c';
  sample(world: World): Sample;
  expected: Expected;
}

export interface RouteEntry {
  /** A request that succeeds for the right caller. */
  sample(world: World): Sample;
  /** Cells where an agent reaches for an object that is not its own. */
  foreign?: ForeignCell[];
  /** Why a public operation has no credential cells. */
  open?: string;
}

const notFound: Expected = { status: 404, code: 'not_found' };

export const ROUTES: Record<OperationId, RouteEntry> = {
  // Identity
  getMe: { sample: () => ({}) },
  listDirectory: { sample: () => ({}) },
  getLimits: { sample: () => ({}) },

  // Administration
  adminLogin: {
    sample: () => ({ body: { username: 'admin', password: 'e2e-admin-password-0123' } }),
  },
  adminLogout: { sample: () => ({}) },
  adminSession: { sample: () => ({}) },
  adminSetupStatus: {
    sample: () => ({}),
    open: 'Public by design: it answers only whether the first administrator still has to be created.',
  },
  adminSetup: {
    sample: () => ({
      body: { token: 'not-the-setup-token', username: 'intruder', password: 'a long enough password' },
    }),
  },
  listHosts: { sample: () => ({}) },
  createHost: { sample: () => ({ body: { name: 'matrix-host', addresses: ['192.0.2.77'] } }) },
  updateHost: { sample: (w) => ({ params: { host_id: w.spareHostId }, body: { name: 'renamed' } }) },
  deleteHost: { sample: (w) => ({ params: { host_id: w.spareHostId } }) },
  listAgents: { sample: () => ({}) },
  createAgent: { sample: (w) => ({ body: { name: 'matrix-agent', host_id: w.hostId } }) },
  updateAgent: { sample: (w) => ({ params: { agent_id: w.target.id }, body: { enabled: false } }) },
  regenerateAgentKey: { sample: (w) => ({ params: { agent_id: w.target.id } }) },
  revokeAgentKey: { sample: (w) => ({ params: { agent_id: w.target.id } }) },
  deleteAgent: { sample: (w) => ({ params: { agent_id: w.target.id } }) },
  bulkAgents: { sample: (w) => ({ body: { action: 'enable', agent_ids: [w.target.id] } }) },
  importAgents: { sample: (w) => ({ body: { agents: [{ name: 'matrix-imported', host: w.hostId }] } }) },
  previewSettings: { sample: () => ({ body: { max_messages_per_channel: 5 } }) },
  getAdminAgent: { sample: (w) => ({ params: { agent_id: w.target.id } }) },
  listAgentRejections: { sample: (w) => ({ params: { agent_id: w.target.id } }) },
  getSettings: { sample: () => ({}) },
  updateSettings: { sample: () => ({ body: { max_recipients: 3 } }) },
  getCleanup: { sample: () => ({}) },
  getOverview: { sample: () => ({}) },
  getFleet: { sample: () => ({}) },
  listAdminChannels: { sample: () => ({}) },
  listAdminChannelMessages: { sample: (w) => ({ params: { channel_id: w.dmId } }) },
  downloadAdminChannelFile: { sample: (w) => ({ params: { channel_id: w.dmId, file_id: w.fileId } }) },
  adminListGroups: { sample: () => ({}) },
  reassignGroupOwner: { sample: (w) => ({ params: { group_id: w.spareGroupId }, body: { agent_id: w.b.id } }) },
  dissolveGroup: { sample: (w) => ({ params: { group_id: w.spareGroupId } }) },
  listAdmins: { sample: () => ({}) },
  createAdmin: { sample: () => ({ body: { username: 'matrix-admin', password: 'matrix admin passphrase' } }) },
  updateAdmin: { sample: () => ({ params: { username: 'admin' }, body: { enabled: false } }) },
  deleteAdmin: { sample: () => ({ params: { username: 'admin' } }) },
  changeAdminPassword: {
    sample: () => ({ body: { current_password: 'e2e-admin-password-0123', new_password: 'matrix new passphrase' } }),
  },
  listAdminSessions: { sample: () => ({}) },
  endAdminSession: { sample: () => ({ params: { session_id: 'ses_000000000000000000000000' } }) },
  listAuditLog: { sample: () => ({}) },
  createMetricsToken: { sample: () => ({}) },
  deleteMetricsToken: { sample: () => ({}) },

  // Messaging
  listChannels: { sample: () => ({}) },
  sendDirect: { sample: (w) => ({ body: { to_agent_ids: [w.b.id], body: 'matrix message' } }) },
  getInbox: {
    sample: () => ({}),
    foreign: [
      {
        name: "C counts the inbox of A and B's private channel",
        actor: 'c',
        sample: (w) => ({ query: `channel_id=${w.dmId}` }),
        expected: notFound,
      },
      {
        name: "C counts the inbox of A's group",
        actor: 'c',
        sample: (w) => ({ query: `channel_id=${w.groupId}` }),
        expected: notFound,
      },
    ],
  },
  claimMessages: {
    sample: () => ({ body: { limit: 1 } }),
    foreign: [
      {
        name: "C claims from A and B's private channel",
        actor: 'c',
        sample: (w) => ({ body: { limit: 10, channel_id: w.dmId } }),
        expected: notFound,
      },
      {
        name: "C claims from A's group",
        actor: 'c',
        sample: (w) => ({ body: { limit: 10, channel_id: w.groupId } }),
        expected: notFound,
      },
    ],
  },
  ackMessages: {
    sample: (w) => ({ body: { acks: [{ message_id: w.messageId, claim_token: w.claimToken }] } }),
    foreign: [
      {
        name: "C ACKs B's message with B's claim token",
        actor: 'c',
        sample: (w) => ({ body: { acks: [{ message_id: w.messageId, claim_token: w.claimToken }] } }),
        expected: { itemsRejected: 'not_found' },
      },
      {
        name: "A (the sender) ACKs B's message with B's claim token",
        actor: 'a',
        sample: (w) => ({ body: { acks: [{ message_id: w.messageId, claim_token: w.claimToken }] } }),
        expected: { itemsRejected: 'not_found' },
      },
    ],
  },
  extendClaims: {
    sample: (w) => ({ body: { items: [{ message_id: w.messageId, claim_token: w.claimToken }] } }),
    foreign: [
      {
        name: "C extends B's claim with B's claim token",
        actor: 'c',
        sample: (w) => ({ body: { items: [{ message_id: w.messageId, claim_token: w.claimToken }] } }),
        expected: { itemsRejected: 'not_found' },
      },
      {
        name: "A (the sender) extends B's claim with B's claim token",
        actor: 'a',
        sample: (w) => ({ body: { items: [{ message_id: w.messageId, claim_token: w.claimToken }] } }),
        expected: { itemsRejected: 'not_found' },
      },
    ],
  },
  releaseClaims: {
    sample: (w) => ({ body: { items: [{ message_id: w.messageId, claim_token: w.claimToken }] } }),
    foreign: [
      {
        name: "C releases B's claim with B's claim token",
        actor: 'c',
        sample: (w) => ({ body: { items: [{ message_id: w.messageId, claim_token: w.claimToken }] } }),
        expected: { itemsRejected: 'not_found' },
      },
      {
        name: "A (the sender) releases B's claim with B's claim token",
        actor: 'a',
        sample: (w) => ({ body: { items: [{ message_id: w.messageId, claim_token: w.claimToken }] } }),
        expected: { itemsRejected: 'not_found' },
      },
    ],
  },
  listMessages: {
    sample: (w) => ({ params: { channel_id: w.dmId } }),
    foreign: [
      {
        name: "C reads the history of A and B's private channel",
        actor: 'c',
        sample: (w) => ({ params: { channel_id: w.dmId } }),
        expected: notFound,
      },
      {
        name: "C reads the history of A's group",
        actor: 'c',
        sample: (w) => ({ params: { channel_id: w.groupId } }),
        expected: notFound,
      },
    ],
  },

  searchMessages: {
    sample: () => ({ query: 'q=hello' }),
    foreign: [
      {
        name: "C searches A and B's private channel by its ID",
        actor: 'c',
        sample: (w) => ({ query: `q=hello&channel_id=${w.dmId}` }),
        expected: notFound,
      },
      {
        name: "C searches A's group by its ID",
        actor: 'c',
        sample: (w) => ({ query: `q=hello&channel_id=${w.groupId}` }),
        expected: notFound,
      },
    ],
  },

  // Files
  listChannelFiles: {
    sample: (w) => ({ params: { channel_id: w.dmId } }),
    foreign: [
      {
        name: "C lists the files of A and B's private channel",
        actor: 'c',
        sample: (w) => ({ params: { channel_id: w.dmId } }),
        expected: notFound,
      },
    ],
  },
  downloadFile: {
    sample: (w) => ({ params: { file_id: w.fileId } }),
    foreign: [
      {
        name: 'C downloads the file A sent B',
        actor: 'c',
        sample: (w) => ({ params: { file_id: w.fileId } }),
        expected: notFound,
      },
    ],
  },

  // Groups
  listGroups: { sample: () => ({}) },
  createGroup: { sample: () => ({ body: { name: 'matrix group' } }) },
  getGroup: {
    sample: (w) => ({ params: { group_id: w.groupId } }),
    foreign: [
      {
        name: "C reads A's group",
        actor: 'c',
        sample: (w) => ({ params: { group_id: w.groupId } }),
        expected: notFound,
      },
    ],
  },
  inviteToGroup: {
    sample: (w) => ({ params: { group_id: w.groupId }, body: { agent_ids: [w.c.id] } }),
    foreign: [
      {
        name: "C invites itself to A's group",
        actor: 'c',
        sample: (w) => ({ params: { group_id: w.groupId }, body: { agent_ids: [w.c.id] } }),
        expected: notFound,
      },
      {
        name: "B (a member, not the owner) invites C to A's group",
        actor: 'b',
        sample: (w) => ({ params: { group_id: w.groupId }, body: { agent_ids: [w.c.id] } }),
        expected: { status: 403, code: 'not_group_owner' },
      },
    ],
  },
  joinGroup: {
    sample: (w) => ({ params: { group_id: w.groupId } }),
    foreign: [
      {
        name: "C joins A's group uninvited",
        actor: 'c',
        sample: (w) => ({ params: { group_id: w.groupId } }),
        expected: { status: 403, code: 'not_invited' },
      },
    ],
  },
  leaveGroup: {
    sample: (w) => ({ params: { group_id: w.groupId } }),
    foreign: [
      {
        name: "C leaves A's group it never joined",
        actor: 'c',
        sample: (w) => ({ params: { group_id: w.groupId } }),
        expected: notFound,
      },
      {
        name: 'A, the owner, leaves its own group',
        actor: 'a',
        sample: (w) => ({ params: { group_id: w.groupId } }),
        expected: { status: 403, code: 'owner_cannot_leave' },
      },
    ],
  },
  sendGroupMessage: {
    sample: (w) => ({ params: { group_id: w.groupId }, body: { body: 'matrix group message' } }),
    foreign: [
      {
        name: "C sends to A's group",
        actor: 'c',
        sample: (w) => ({ params: { group_id: w.groupId }, body: { body: 'intrusion' } }),
        expected: notFound,
      },
    ],
  },
};
