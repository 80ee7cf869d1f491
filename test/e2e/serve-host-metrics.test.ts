import os from 'node:os';
/** Unit tests (plain Node, no server) for the launcher's host metric readers. */
import { describe, expect, it } from 'vitest';
import { Resources } from '../../core/contract/models.js';
import {
  cpuTimesFromOs,
  cpuUtilization,
  diskMetric,
  HostMetrics,
  memoryMetric,
  parseMeminfo,
  parseNvidiaSmi,
  parseProcStat,
  readGpu,
} from '../../server/host-metrics.js';
import { EXPECTED_GPU, fakeNvidiaSmiDir } from './fake-nvidia-smi.js';
import { tempDir } from './harness.js';

/** Runs `fn` with PATH set to exactly `path` (the launcher finds nvidia-smi through PATH). */
async function withPath<T>(path: string, fn: () => Promise<T>): Promise<T> {
  const saved = process.env.PATH;
  process.env.PATH = path;
  try {
    return await fn();
  } finally {
    process.env.PATH = saved;
  }
}

describe('/proc/stat', () => {
  const sample = `cpu  159373 51 31695 216169 1950 0 748 218 0 0
cpu0 76548 20 15003 112848 353 0 194 109 0 0
intr 123 0 0
`;

  it('sums user..steal, counts idle + iowait as idle and leaves guest time out', () => {
    expect(parseProcStat(sample)).toEqual({
      idle: 216169 + 1950,
      total: 159373 + 51 + 31695 + 216169 + 1950 + 0 + 748 + 218,
    });
    // guest (9th/10th fields) is already inside user: a large guest value changes nothing.
    expect(parseProcStat('cpu  10 0 10 80 0 0 0 0 999 999\n')).toEqual({ idle: 80, total: 100 });
  });

  it('accepts the old four-field format and rejects garbage', () => {
    expect(parseProcStat('cpu 1 2 3 4\n')).toEqual({ idle: 4, total: 10 });
    expect(parseProcStat('cpu0 1 2 3 4\n')).toBeNull();
    expect(parseProcStat('cpu  a b c d\n')).toBeNull();
    expect(parseProcStat('')).toBeNull();
  });

  it('turns two samples into a busy percentage', () => {
    const before = { idle: 1000, total: 2000 };
    expect(cpuUtilization(before, { idle: 1075, total: 2100 })).toBe(25);
    expect(cpuUtilization(before, { idle: 1000, total: 2100 })).toBe(100);
    expect(cpuUtilization(before, { idle: 1100, total: 2100 })).toBe(0);
  });

  it('needs time to have passed', () => {
    expect(cpuUtilization({ idle: 5, total: 10 }, { idle: 5, total: 10 })).toBeNull();
    expect(cpuUtilization({ idle: 5, total: 10 }, { idle: 4, total: 12 })).toBeNull();
  });

  it('falls back to os.cpus() times', () => {
    const times = (user: number, idle: number) => ({ user, nice: 0, sys: 0, idle, irq: 0 });
    const cpus = [
      { model: 'x', speed: 1, times: times(30, 70) },
      { model: 'x', speed: 1, times: times(10, 90) },
    ];
    expect(cpuTimesFromOs(cpus)).toEqual({ idle: 160, total: 200 });
    expect(cpuTimesFromOs([])).toBeNull();
  });
});

describe('/proc/meminfo', () => {
  it('reads MemTotal and MemAvailable in bytes', () => {
    const text = 'MemTotal:       24683652 kB\nMemFree:         1000 kB\nMemAvailable:   22788936 kB\n';
    expect(parseMeminfo(text)).toEqual({ total: 24683652 * 1024, available: 22788936 * 1024 });
  });

  it('returns null without MemAvailable (kernels before 3.14)', () => {
    expect(parseMeminfo('MemTotal: 100 kB\nMemFree: 50 kB\n')).toBeNull();
  });

  it('reports used = total - available', () => {
    expect(memoryMetric(1000, 250)).toEqual({
      available: true,
      utilization_percent: 75,
      used_bytes: 750,
      total_bytes: 1000,
    });
  });
});

describe('disk', () => {
  it('computes usage like df (reserved blocks count as neither used nor usable)', () => {
    const metric = diskMetric({ bsize: 4096, blocks: 1000, bfree: 300, bavail: 250 });
    expect(metric).toMatchObject({
      available: true,
      used_bytes: 700 * 4096,
      total_bytes: 1000 * 4096,
      utilization_percent: 73.7,
      detail_code: 'data_dir_file_system',
    });
  });

  it('is unavailable for a file system without capacity', () => {
    expect(diskMetric({ bsize: 4096, blocks: 0, bfree: 0, bavail: 0 })).toMatchObject({
      available: false,
      reason_code: 'disk_no_capacity',
    });
  });
});

describe('nvidia-smi', () => {
  it('reads one GPU', () => {
    expect(parseNvidiaSmi('37, 1024, 8192\n')).toEqual({
      available: true,
      utilization_percent: 37,
      used_bytes: 1024 * 1024 * 1024,
      total_bytes: 8192 * 1024 * 1024,
      detail: '1 GPU',
      detail_code: 'gpu_count',
      params: { count: 1 },
    });
  });

  it('averages utilization and sums memory over several GPUs', () => {
    const metric = parseNvidiaSmi('10, 100, 1000\n30, 300, 1000\n');
    expect(metric).toMatchObject({
      available: true,
      utilization_percent: 20,
      used_bytes: 400 * 1024 * 1024,
      total_bytes: 2000 * 1024 * 1024,
    });
  });

  it('leaves out figures a GPU reports as [N/A]', () => {
    expect(parseNvidiaSmi('[N/A], 100, 1000\n50, [N/A], [N/A]\n')).toMatchObject({
      available: true,
      utilization_percent: 50,
      used_bytes: 100 * 1024 * 1024,
      total_bytes: 1000 * 1024 * 1024,
    });
    expect(parseNvidiaSmi('[N/A], [N/A], [N/A]\n')).toEqual({
      available: false,
      reason: 'nvidia-smi reports no GPU utilization.',
      reason_code: 'gpu_no_utilization',
    });
  });

  it('is unavailable when nvidia-smi lists nothing', () => {
    expect(parseNvidiaSmi('\n')).toEqual({
      available: false,
      reason: 'nvidia-smi listed no GPU.',
      reason_code: 'gpu_none_listed',
    });
  });
});

describe('nvidia-smi on PATH (a fake answering the real query with real output)', () => {
  it('reads the GPUs that nvidia-smi reports', async () => {
    const bin = fakeNvidiaSmiDir();
    expect(await withPath(bin, () => readGpu())).toEqual(EXPECTED_GPU);
    // And through the collector, next to the real CPU, memory and disk figures.
    const value = await withPath(bin, async () => {
      const metrics = new HostMetrics(tempDir(), { cacheMs: 0 });
      await metrics.start();
      return metrics.read();
    });
    expect(Resources.parse(value)).toEqual(value);
    expect(value.gpu).toEqual(EXPECTED_GPU);
  });

  it('says why when nvidia-smi fails or is missing', async () => {
    const failing = fakeNvidiaSmiDir({ exitCode: 9 });
    expect(await withPath(failing, () => readGpu())).toEqual({
      available: false,
      reason: 'nvidia-smi failed (no GPU or driver not loaded).',
      reason_code: 'gpu_failed',
    });
    expect(await withPath(tempDir(), () => readGpu())).toEqual({
      available: false,
      reason: 'No NVIDIA GPU: nvidia-smi is not installed.',
      reason_code: 'gpu_not_installed',
    });
  });
});

describe('HostMetrics on this machine', () => {
  it('answers a valid Resources object with real CPU, memory and disk figures', async () => {
    const metrics = new HostMetrics(tempDir(), { cacheMs: 0 });
    await metrics.start();
    const value = await metrics.read();
    expect(Resources.parse(value)).toEqual(value);
    expect(value.memory.available).toBe(true);
    expect(value.disk.available).toBe(true);
    expect(value.cpu).toMatchObject({
      available: true,
      detail_code: 'logical_cpus',
      params: { count: os.availableParallelism() },
    });
    // Either a real GPU or a reason why not; never a made-up figure.
    if (!value.gpu.available) expect(value.gpu.reason).toMatch(/nvidia-smi|GPU/);
  });

  it('shares one reading between concurrent callers', async () => {
    const metrics = new HostMetrics(tempDir(), { cacheMs: 60_000 });
    await metrics.start();
    const [a, b] = await Promise.all([metrics.read(), metrics.read()]);
    expect(a).toBe(b);
    expect(await metrics.read()).toBe(a);
  });
});
