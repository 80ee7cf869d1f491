import { msg } from '@lit/localize';

/**
 * What an audited operation did, in the administrator's language. The audit log stores the
 * operation ID (stable across languages and releases); an ID without a label here (an operation
 * added later) is shown as it is.
 */
export function actionLabel(action: string): string {
  switch (action) {
    case 'adminLogin':
      return msg('Signed in');
    case 'adminLogout':
      return msg('Signed out');
    case 'adminSetup':
      return msg('Created the first administrator');
    case 'createHost':
      return msg('Added a host');
    case 'updateHost':
      return msg('Changed a host');
    case 'deleteHost':
      return msg('Deleted a host');
    case 'createAgent':
      return msg('Created an agent');
    case 'updateAgent':
      return msg('Changed an agent');
    case 'deleteAgent':
      return msg('Deleted an agent');
    case 'regenerateAgentKey':
      return msg('Issued a new API key');
    case 'revokeAgentKey':
      return msg('Revoked an API key');
    case 'updateSettings':
      return msg('Changed the settings');
    case 'reassignGroupOwner':
      return msg('Changed a group owner');
    case 'dissolveGroup':
      return msg('Dissolved a group');
    case 'createAdmin':
      return msg('Added an administrator');
    case 'updateAdmin':
      return msg('Enabled or disabled an administrator');
    case 'deleteAdmin':
      return msg('Deleted an administrator');
    case 'changeAdminPassword':
      return msg('Changed their password');
    case 'endAdminSession':
      return msg('Ended a session');
    default:
      return action;
  }
}

/** The audited actions the filter offers, in the order of the list above. */
export const AUDIT_ACTIONS = [
  'adminLogin',
  'adminLogout',
  'adminSetup',
  'createHost',
  'updateHost',
  'deleteHost',
  'createAgent',
  'updateAgent',
  'deleteAgent',
  'regenerateAgentKey',
  'revokeAgentKey',
  'updateSettings',
  'reassignGroupOwner',
  'dissolveGroup',
  'createAdmin',
  'updateAdmin',
  'deleteAdmin',
  'changeAdminPassword',
  'endAdminSession',
] as const;
