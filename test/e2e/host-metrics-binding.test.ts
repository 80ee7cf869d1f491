/**
 * The launcher serves real host figures to the worker through the HOST_METRICS service binding;
 * the admin overview shows them (self-hosted only: on Cloudflare every metric is unavailable).
 * The server runs with a fake nvidia-smi first on its PATH, so the GPU figures are asserted on
 * every machine (the absent case is in serve-host-metrics.test.ts).
 */
import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { EXPECTED_GPU, fakeNvidiaSmiDir, pathWith } from './fake-nvidia-smi.js';
import { adminLogin, api, type Server, startServer } from './harness.js';

let server: Server;

beforeAll(async () => {
  server = await startServer({ env: { PATH: pathWith(fakeNvidiaSmiDir()) } });
});

afterAll(async () => {
  await server?.stop();
});

it('reports this machine in the overview', async () => {
  const cookie = await adminLogin(server);
  const res = await api(server, 'GET', '/admin/overview', { cookie });
  expect(res.status, res.text).toBe(200);
  const { cpu, memory, disk, gpu } = res.body.resources;
  expect(cpu).toMatchObject({ available: true });
  expect(cpu.utilization_percent).toBeGreaterThanOrEqual(0);
  expect(cpu.utilization_percent).toBeLessThanOrEqual(100);
  expect(disk).toMatchObject({ available: true });
  expect(disk.total_bytes).toBeGreaterThan(0);
  expect(memory).toMatchObject({ available: true });
  const meminfo = existsSync('/proc/meminfo') ? readFileSync('/proc/meminfo', 'utf8') : '';
  const memTotal = /^MemTotal:\s+(\d+) kB/m.exec(meminfo);
  if (memTotal) expect(memory.total_bytes).toBe(Number(memTotal[1]) * 1024);
  // The GPU figures are nvidia-smi's, passed through the binding unchanged.
  expect(gpu).toEqual(EXPECTED_GPU);
});
