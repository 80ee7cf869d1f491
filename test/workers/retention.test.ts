/**
 * The retention object's own bookkeeping: the channel catalog, the cleanup status rules, and the
 * settings-change handshake that makes retroactive cleanup survive a crash of the admin request.
 * Cleanup over real channels is in files.test.ts.
 */

import { describe, expect, it } from 'vitest';
import { cleanupStatusView, RUN_FAILED_AFTER_ATTEMPTS } from '../../durable-objects/retention/status.js';
import { adminCookie, call } from './helpers.js';
import { env } from './test-env.js';

const retention = () => env.RETENTION.get(env.RETENTION.idFromName('retention'));
const registry = () => env.REGISTRY.get(env.REGISTRY.idFromName('registry'));

const none = { pending: 0, failed: 0, lastError: null, nextAttemptAt: null };
const idleRun = { active: false, channelsDone: 0, attempts: 0, lastError: null, lastCompletedAt: null };

describe('cleanup status rules', () => {
  it('is idle with nothing to do, and counts every channel as done', () => {
    expect(
      cleanupStatusView({ run: idleRun, channelsTotal: 3, uploadsInProgress: 0, own: none, channels: { ...none } }),
    ).toEqual({
      state: 'idle',
      pending_jobs: 0,
      failed_jobs: 0,
      channels_total: 3,
      channels_done: 3,
      uploads_in_progress: 0,
      last_error: null,
      last_completed_at: null,
    });
  });

  it('is running while a run is active or a deletion is pending, failed once a job failed repeatedly', () => {
    const active = { ...idleRun, active: true, channelsDone: 1 };
    expect(
      cleanupStatusView({ run: active, channelsTotal: 3, uploadsInProgress: 0, own: none, channels: { ...none } }),
    ).toMatchObject({
      state: 'running',
      channels_done: 1,
    });
    expect(
      cleanupStatusView({
        run: idleRun,
        channelsTotal: 0,
        uploadsInProgress: 0,
        own: { ...none, pending: 2 },
        channels: { ...none },
      }),
    ).toMatchObject({ state: 'running', pending_jobs: 2 });
    expect(
      cleanupStatusView({
        run: idleRun,
        channelsTotal: 0,
        uploadsInProgress: 0,
        own: none,
        channels: { pending: 4, failed: 1, lastError: 'R2: 500' },
      }),
    ).toMatchObject({ state: 'failed', pending_jobs: 4, failed_jobs: 1, last_error: 'R2: 500' });
    expect(
      cleanupStatusView({
        run: { ...active, attempts: RUN_FAILED_AFTER_ATTEMPTS, lastError: 'channel unreachable' },
        channelsTotal: 3,
        uploadsInProgress: 0,
        own: none,
        channels: { ...none },
      }),
    ).toMatchObject({ state: 'failed', last_error: 'channel unreachable' });
  });
});

describe('channel catalog', () => {
  it('registers channels once each and pages them in creation order', async () => {
    const keeper = retention();
    await keeper.registerChannels([
      { channel_id: 'dm_a', kind: 'private', created_at: 1 },
      { channel_id: 'grp_b', kind: 'group', created_at: 2 },
    ]);
    await keeper.registerChannels([
      { channel_id: 'dm_a', kind: 'private', created_at: 9 },
      { channel_id: 'dm_c', kind: 'private', created_at: 3 },
    ]);
    const first = await keeper.listCatalog(0, 2);
    expect(first.channels.map((c) => c.channel_id)).toEqual(['dm_a', 'grp_b']);
    expect(first.channels[0]!.created_at).toBe(1);
    const second = await keeper.listCatalog(first.next!, 2);
    expect(second).toEqual({ channels: [{ channel_id: 'dm_c', kind: 'private', created_at: 3 }], next: null });
  });
});

describe('settings changes', () => {
  it('answers the cleanup status in the settings routes; lowering a retention limit starts a run', async () => {
    const cookie = await adminCookie();
    const before = await call('GET', '/admin/settings', { cookie });
    expect(before.body.cleanup).toMatchObject({ state: 'idle', pending_jobs: 0, failed_jobs: 0 });
    // Raising a limit, or lowering one that retention does not depend on, starts nothing.
    const raised = await call('PATCH', '/admin/settings', { cookie, body: { max_page_size: 100 } });
    expect(raised.body.cleanup.state).toBe('idle');
    const lowered = await call('PATCH', '/admin/settings', { cookie, body: { max_messages_per_channel: 10 } });
    expect(lowered.status).toBe(200);
    expect(lowered.body.cleanup.state).toBe('running');
    // No channel exists: the next alarm completes the run.
    const done = await retention().runAlarmNow();
    expect(done.state).toBe('idle');
    expect(done.last_completed_at).not.toBeNull();
    const status = await call('GET', '/admin/cleanup', { cookie });
    expect(status.body).toEqual(done);
  });

  it('starts the run from its alarm when the admin request died after the settings commit', async () => {
    const keeper = retention();
    await keeper.prepareSettingsChange();
    // The request "dies" here: the registry commits, settingsChanged is never called.
    await registry().updateSettings({ max_files_per_channel: 3 });
    expect((await keeper.cleanupStatus()).state).toBe('idle');
    await keeper.setClockOffset(31_000);
    const status = await keeper.runAlarmNow();
    // The alarm found the new revision and ran (and, with no channel, completed) a run.
    expect(status.last_completed_at).not.toBeNull();
  });
});
