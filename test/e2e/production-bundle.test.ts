/**
 * The production bundle (`dist/worker/index.js`: what `wrangler deploy` ships and the launcher
 * runs) holds none of the test-only controls, which live in `test/workers/test-worker.ts`: no
 * clock shift, no fault injection, no storage inspection, no channel-call header. Checked in the
 * bundle's text and by calling the Durable Objects of that bundle in Miniflare.
 *
 * One aid is in the bundle on purpose: the fault run's crash point (durable-objects/shared/
 * fault-point.ts), so that the crash tests kill the very code that ships. It does nothing unless
 * the FAULT_POINT binding names it, and no deployment declares that binding: not wrangler.toml,
 * not the options the launcher derives from it (only SWITCHBOARD_TEST_FAULT_POINT adds it, with a
 * warning on stderr; test/node/diagnostics.test.ts).
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Miniflare, Response as MiniflareResponse, type WorkerOptions } from 'miniflare';
import { expect, it } from 'vitest';
import { ROOT, tempDir } from './harness.js';

const BUNDLE = join(ROOT, 'dist/worker/index.js');
const TEST_ONLY = {
  CHANNEL: ['storedKeys', 'setClockOffset', 'setDeletionFailure'],
  RETENTION: ['setClockOffset', 'setDeletionFailure', 'runAlarmNow', 'leaseCount'],
};

it('contains no test-only control, header or switch', () => {
  const text = readFileSync(BUNDLE, 'utf8');
  for (const word of [
    ...TEST_ONLY.CHANNEL,
    ...TEST_ONLY.RETENTION,
    'clockOffset',
    'x-switchboard-channel-calls',
    'TEST_ROUTES',
  ]) {
    expect(text.includes(word), word).toBe(false);
  }
});

it('declares no FAULT_POINT binding: the crash point stays off in every deployment', () => {
  const derived = JSON.parse(readFileSync(join(ROOT, 'dist/worker/miniflare-options.json'), 'utf8')) as WorkerOptions;
  expect(Object.keys(derived.bindings ?? {})).not.toContain('FAULT_POINT');
  expect(readFileSync(join(ROOT, 'wrangler.toml'), 'utf8')).not.toMatch(/FAULT_POINT/);
});

it('its Durable Objects answer no test-only call, whatever the bindings say', async () => {
  const derived = JSON.parse(readFileSync(join(ROOT, 'dist/worker/miniflare-options.json'), 'utf8')) as WorkerOptions;
  const { assets: _assets, ...withoutAssets } = derived as WorkerOptions & { assets?: unknown };
  const mf = new Miniflare({
    cf: false,
    defaultPersistRoot: tempDir(),
    logRequests: false,
    workers: [
      {
        name: 'switchboard',
        ...withoutAssets,
        modules: true,
        scriptPath: BUNDLE,
        modulesRoot: dirname(BUNDLE),
        // The switch that used to enable them: it must change nothing now.
        bindings: { ...withoutAssets.bindings, KEY_PEPPER: 'bundle-test-pepper', TEST_ROUTES: '1' },
        serviceBindings: { ...withoutAssets.serviceBindings, HOST_METRICS: () => new MiniflareResponse('{}') },
      },
    ],
  });
  try {
    for (const [binding, methods] of Object.entries(TEST_ONLY)) {
      const namespace = await mf.getDurableObjectNamespace(binding);
      const stub = namespace.get(namespace.idFromName(binding === 'RETENTION' ? 'retention' : 'dm_bundle')) as any;
      for (const method of methods) {
        const called = (async () => stub[method](0))();
        await expect(called, `${binding}.${method}`).rejects.toThrow(`does not implement the method "${method}"`);
      }
    }
  } finally {
    await mf.dispose();
  }
});
