import { abortAllDurableObjects, reset } from 'cloudflare:test';
import { beforeEach } from 'vitest';
import { forgetCachedSettings } from '../../core/lib/settings-cache.js';
import { forgetLegacyKeyAgents } from '../../worker/lib/legacy-keys.js';

// Every test starts from empty storage, fresh Durable Object instances and no cached settings or legacy-key set.
beforeEach(async () => {
  await reset();
  await abortAllDurableObjects();
  forgetCachedSettings();
  forgetLegacyKeyAgents();
});
