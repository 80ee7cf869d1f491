import { msg } from '@lit/localize';
import type { LimitKey } from './lib/settings-form.js';

/** The settings page's name for each limit; also the label of a refused settings field. */
export function limitLabel(key: LimitKey): string {
  switch (key) {
    case 'max_body_code_points':
      return msg('Longest message (characters)');
    case 'max_recipients':
      return msg('Recipients per direct send');
    case 'max_messages_per_channel':
      return msg('Messages kept per channel');
    case 'max_files_per_channel':
      return msg('Messages with files kept per channel');
    case 'max_file_bytes':
      return msg('Largest file (MB)');
    case 'max_concurrent_uploads':
      return msg('Uploads at the same time');
    case 'max_upload_temp_bytes':
      return msg('Space for uploads in progress (MB)');
    case 'upload_stall_seconds':
      return msg('Stalled upload timeout (seconds)');
    case 'claim_seconds':
      return msg('Claim duration (seconds)');
    case 'max_claim_batch':
      return msg('Messages per claim');
    case 'max_deliveries':
      return msg('Claims before a message is parked');
    case 'max_page_size':
      return msg('Largest page of a list');
    case 'max_group_members':
      return msg('Members per group');
  }
}
