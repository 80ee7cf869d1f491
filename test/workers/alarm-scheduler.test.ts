import { env, runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { AlarmScheduler } from '../../durable-objects/shared/alarm-scheduler.js';

describe('the alarm scheduler', () => {
  it('keeps the earliest of concurrent requests: two asks interleaved never lose the earlier alarm', async () => {
    const stub = env.AGENT.get(env.AGENT.idFromName('alarm-scheduler-test'));
    await runInDurableObject(stub, async (_instance, state) => {
      await state.storage.deleteAlarm();
      const alarms = new AlarmScheduler(state, () => Date.now(), 'test');
      const now = Date.now();
      // Both read "no alarm" before either writes, unless the scheduler serializes them.
      await Promise.all([alarms.noLaterThan(now + 10_000), alarms.noLaterThan(now + 60_000), alarms.within(30_000)]);
      const at = await state.storage.getAlarm();
      expect(at).not.toBeNull();
      expect(at as number).toBeLessThanOrEqual(now + 10_000 + 50);
      await state.storage.deleteAlarm();
    });
  });
});
