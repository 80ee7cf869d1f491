/**
 * The cleanup status shown in `GET /admin/cleanup` and the settings answer, derived from the
 * retention object's state. Pure, so the rules are tested without storage.
 */
import type { CleanupStatusView } from '../../core/rpc.js';
import type { DeletionStats } from '../shared/deletion-jobs.js';

export type { CleanupStatusView };

/** After this many failed attempts to reach channels, a run counts as failed (it keeps retrying). */
export const RUN_FAILED_AFTER_ATTEMPTS = 5;

export interface StatusInputs {
  run: {
    active: boolean;
    channelsDone: number;
    attempts: number;
    lastError: string | null;
    lastCompletedAt: number | null;
  };
  channelsTotal: number;
  uploadsInProgress: number;
  /** The object's own deletion jobs (staged uploads). */
  own: DeletionStats;
  /** Sums over the channels that reported unfinished deletions. */
  channels: { pending: number; failed: number; lastError: string | null };
}

/**
 * `failed` while any deletion job has failed repeatedly or the run cannot reach channels;
 * `running` while a run is in progress or any deletion is still pending; `idle` otherwise. A run is
 * complete (last_completed_at) only once every channel was visited and no deletion is pending.
 */
export function cleanupStatusView(input: StatusInputs): CleanupStatusView {
  const pending = input.own.pending + input.channels.pending;
  const failed = input.own.failed + input.channels.failed;
  const runFailed = input.run.active && input.run.attempts >= RUN_FAILED_AFTER_ATTEMPTS;
  const state = failed > 0 || runFailed ? 'failed' : input.run.active || pending > 0 ? 'running' : 'idle';
  return {
    state,
    pending_jobs: pending,
    failed_jobs: failed,
    channels_total: input.channelsTotal,
    channels_done: input.run.active ? Math.min(input.run.channelsDone, input.channelsTotal) : input.channelsTotal,
    uploads_in_progress: input.uploadsInProgress,
    last_error: input.run.lastError ?? input.channels.lastError ?? input.own.lastError,
    last_completed_at: input.run.lastCompletedAt === null ? null : new Date(input.run.lastCompletedAt).toISOString(),
  };
}
