/**
 * server/startup-memory.ts: the launcher collects its start-up garbage once the server is up,
 * through a `gc` it takes from a context of its own; no code it loads may see a global `gc`.
 */
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { expect, it } from 'vitest';
import { holdStartupMemory } from '../../server/startup-memory.js';

it('exposes no gc to other code, and settling collects garbage once', () => {
  const memory = holdStartupMemory();
  expect((globalThis as { gc?: unknown }).gc).toBeUndefined();
  // The flag is off again: a context made now has no gc either.
  expect(runInNewContext('typeof gc')).toBe('undefined');
  // Garbage the collection must find: 64 MB of arrays nothing refers to.
  for (let i = 0; i < 64; i++) new Array(128 * 1024).fill(i);
  const before = v8.getHeapStatistics().used_heap_size;
  memory.settle();
  expect(v8.getHeapStatistics().used_heap_size).toBeLessThan(before);
  // A second call does nothing (and does not throw).
  memory.settle();
});
