/**
 * Host resource figures for the admin overview (`Resources` of core/contract/models.ts), read by
 * the launcher and served to the worker as the HOST_METRICS service binding. Parsers are pure so
 * they can be tested against captured /proc and nvidia-smi text; readers never throw: a figure
 * that cannot be read is reported as unavailable with the reason.
 */
import { execFile } from 'node:child_process';
import { readFile, statfs } from 'node:fs/promises';
import os from 'node:os';
import type { RESOURCE_REASON_CODES, Resources } from '../core/contract/models.js';

export type ResourceMetric = Resources['cpu'];
type ReasonCode = (typeof RESOURCE_REASON_CODES)[number];

export interface CpuTimes {
  /** Ticks spent idle (idle + iowait on Linux). */
  idle: number;
  /** All ticks (idle included). */
  total: number;
}

function unavailable(reason: string, reason_code: ReasonCode, params?: Record<string, number>): ResourceMetric {
  return { available: false, reason, reason_code, ...(params && { params }) };
}

function percent(part: number, whole: number): number {
  if (!(whole > 0)) return 0;
  return Math.min(100, Math.max(0, Math.round((part / whole) * 1000) / 10));
}

/**
 * The aggregate `cpu` line of /proc/stat: user nice system idle iowait irq softirq steal [guest
 * guest_nice]. Guest time is already counted in user/nice, so it is left out of the total.
 */
export function parseProcStat(text: string): CpuTimes | null {
  const line = text.split('\n').find((l) => /^cpu\s/.test(l));
  if (!line) return null;
  const fields = line.trim().split(/\s+/).slice(1, 9).map(Number);
  if (fields.length < 4 || fields.some((n) => !Number.isFinite(n) || n < 0)) return null;
  const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = fields;
  return { idle: idle + iowait, total: user + nice + system + idle + iowait + irq + softirq + steal };
}

/** Busy share between two samples; null when no time passed (the caller measures again). */
export function cpuUtilization(before: CpuTimes, after: CpuTimes): number | null {
  const total = after.total - before.total;
  const idle = after.idle - before.idle;
  if (total <= 0 || idle < 0) return null;
  return percent(total - idle, total);
}

/** The same figures from os.cpus(), for systems without /proc. */
export function cpuTimesFromOs(cpus: os.CpuInfo[]): CpuTimes | null {
  if (cpus.length === 0) return null;
  let idle = 0;
  let total = 0;
  for (const { times } of cpus) {
    idle += times.idle;
    total += times.user + times.nice + times.sys + times.idle + times.irq;
  }
  return { idle, total };
}

/** MemTotal and MemAvailable of /proc/meminfo, in bytes (the file counts in kB). */
export function parseMeminfo(text: string): { total: number; available: number } | null {
  const field = (name: string) => {
    const match = new RegExp(`^${name}:\\s+(\\d+)\\s*kB`, 'm').exec(text);
    return match ? Number(match[1]) * 1024 : null;
  };
  const total = field('MemTotal');
  const available = field('MemAvailable');
  if (total === null || available === null || total <= 0) return null;
  return { total, available: Math.min(available, total) };
}

export function memoryMetric(
  total: number,
  available: number,
  detail?: { text: string; code: 'os_free_memory' },
): ResourceMetric {
  const used = Math.max(0, total - available);
  return {
    available: true,
    utilization_percent: percent(used, total),
    used_bytes: used,
    total_bytes: total,
    ...(detail !== undefined && { detail: detail.text, detail_code: detail.code }),
  };
}

/** Like df: the share of the space an unprivileged writer can use that is taken. */
export function diskMetric(stats: { bsize: number; blocks: number; bfree: number; bavail: number }): ResourceMetric {
  const total = stats.blocks * stats.bsize;
  const used = (stats.blocks - stats.bfree) * stats.bsize;
  const usable = used + stats.bavail * stats.bsize;
  if (!(total > 0)) return unavailable('The data directory reports no capacity.', 'disk_no_capacity');
  return {
    available: true,
    utilization_percent: percent(used, usable),
    used_bytes: used,
    total_bytes: total,
    detail: 'file system of the data directory',
    detail_code: 'data_dir_file_system',
  };
}

const MIB = 1024 * 1024;

/**
 * `nvidia-smi --query-gpu=utilization.gpu,memory.used,memory.total --format=csv,noheader,nounits`:
 * one `util, used MiB, total MiB` line per GPU. Several GPUs are summed (memory) and averaged
 * (utilization). A GPU that reports `[N/A]` for a field leaves that figure out.
 */
export function parseNvidiaSmi(text: string): ResourceMetric {
  const rows = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .map((line) => line.split(',').map((cell) => Number(cell.trim())));
  if (rows.length === 0) return unavailable('nvidia-smi listed no GPU.', 'gpu_none_listed');
  const utilizations = rows.map((r) => r[0]).filter((n): n is number => Number.isFinite(n));
  if (utilizations.length === 0) return unavailable('nvidia-smi reports no GPU utilization.', 'gpu_no_utilization');
  const memory = rows.filter((r) => Number.isFinite(r[1]) && Number.isFinite(r[2]));
  const used = memory.reduce((sum, r) => sum + (r[1] as number) * MIB, 0);
  const total = memory.reduce((sum, r) => sum + (r[2] as number) * MIB, 0);
  const average = utilizations.reduce((a, b) => a + b, 0) / utilizations.length;
  return {
    available: true,
    utilization_percent: Math.min(100, Math.max(0, Math.round(average * 10) / 10)),
    ...(memory.length > 0 && { used_bytes: used, total_bytes: total }),
    detail: rows.length === 1 ? '1 GPU' : `${rows.length} GPUs (average utilization, memory summed)`,
    detail_code: 'gpu_count',
    params: { count: rows.length },
  };
}

const NVIDIA_SMI_ARGS = ['--query-gpu=utilization.gpu,memory.used,memory.total', '--format=csv,noheader,nounits'];

export function readGpu(timeoutMs = 2000): Promise<ResourceMetric> {
  return new Promise((resolve) => {
    execFile('nvidia-smi', NVIDIA_SMI_ARGS, { timeout: timeoutMs, windowsHide: true }, (error, stdout) => {
      if (!error) {
        resolve(parseNvidiaSmi(stdout));
        return;
      }
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') resolve(unavailable('No NVIDIA GPU: nvidia-smi is not installed.', 'gpu_not_installed'));
      else if (error.killed)
        resolve(
          unavailable(`nvidia-smi did not answer within ${timeoutMs} ms.`, 'gpu_timeout', { timeout_ms: timeoutMs }),
        );
      else resolve(unavailable('nvidia-smi failed (no GPU or driver not loaded).', 'gpu_failed'));
    });
  });
}

async function readCpuTimes(): Promise<CpuTimes | null> {
  try {
    return parseProcStat(await readFile('/proc/stat', 'utf8'));
  } catch {
    return cpuTimesFromOs(os.cpus());
  }
}

async function readMemory(): Promise<ResourceMetric> {
  try {
    const info = parseMeminfo(await readFile('/proc/meminfo', 'utf8'));
    if (info) return memoryMetric(info.total, info.available);
  } catch {
    // No /proc: the OS figures below count reclaimable cache as used, hence the detail.
  }
  return memoryMetric(os.totalmem(), os.freemem(), {
    text: 'free memory as reported by the OS',
    code: 'os_free_memory',
  });
}

async function readDisk(dataDir: string): Promise<ResourceMetric> {
  try {
    return diskMetric(await statfs(dataDir));
  } catch (error) {
    return unavailable(
      `Cannot read the data directory's file system (${(error as Error).message}).`,
      'disk_unreadable',
    );
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * CPU utilization is a rate, so it is measured between calls: each reading covers the time since
 * the previous one (since start for the first). When too little time passed to count, it measures
 * a short fresh window instead. Concurrent callers share one reading, and a reading is reused for a
 * second, so a console polling the overview costs one /proc read and one nvidia-smi run per second.
 */
export class HostMetrics {
  private previousCpu: CpuTimes | null = null;
  private inFlight: Promise<Resources> | null = null;
  private cached: { at: number; value: Resources } | null = null;

  constructor(
    private readonly dataDir: string,
    private readonly options: { cacheMs?: number; gpuTimeoutMs?: number } = {},
  ) {}

  /** Takes the first CPU sample, so the first reading has a window to measure. */
  async start(): Promise<void> {
    this.previousCpu = await readCpuTimes();
  }

  read(): Promise<Resources> {
    const cacheMs = this.options.cacheMs ?? 1000;
    if (this.cached && Date.now() - this.cached.at < cacheMs) return Promise.resolve(this.cached.value);
    this.inFlight ??= this.measure().finally(() => {
      this.inFlight = null;
    });
    return this.inFlight;
  }

  private async measure(): Promise<Resources> {
    const [cpu, memory, disk, gpu] = await Promise.all([
      this.readCpu(),
      readMemory(),
      readDisk(this.dataDir),
      readGpu(this.options.gpuTimeoutMs),
    ]);
    const value = { cpu, memory, disk, gpu };
    this.cached = { at: Date.now(), value };
    return value;
  }

  private async readCpu(): Promise<ResourceMetric> {
    let before = this.previousCpu;
    let after = await readCpuTimes();
    if (!after) return unavailable('CPU times are not readable on this system.', 'cpu_unreadable');
    let share = before ? cpuUtilization(before, after) : null;
    if (share === null) {
      before = after;
      await sleep(250);
      after = await readCpuTimes();
      share = before && after ? cpuUtilization(before, after) : null;
    }
    this.previousCpu = after;
    if (share === null) return unavailable('CPU times did not advance.', 'cpu_not_advancing');
    const cpus = os.availableParallelism();
    return {
      available: true,
      utilization_percent: share,
      detail: `${cpus} logical CPUs`,
      detail_code: 'logical_cpus',
      params: { count: cpus },
    };
  }
}
