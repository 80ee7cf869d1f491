/**
 * The launcher serves real host figures to the worker through the HOST_METRICS service binding;
 * the admin overview shows them (self-hosted only: on Cloudflare every metric is unavailable).
 */
import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { adminLogin, api, type Server, startServer } from './harness.js';

let server: Server;

beforeAll(async () => {
  server = await startServer();
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
  // A machine without an NVIDIA GPU says why instead of inventing a figure.
  if (!gpu.available) expect(gpu.reason).toMatch(/nvidia-smi|GPU/);
});
