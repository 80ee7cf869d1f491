/**
 * A stand-in `nvidia-smi` for machines without an NVIDIA GPU, put first on the launcher's PATH so
 * the GPU path of the host metrics (spawn, parse, binding, overview, console) runs everywhere.
 * It answers only the exact query the launcher makes, with what the real tool prints for it on a
 * two-GPU machine, and fails like the real tool on any other arguments, so a changed query fails
 * the tests instead of passing on canned text.
 */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { tempDir } from './harness.js';

export const NVIDIA_SMI_QUERY = '--query-gpu=utilization.gpu,memory.used,memory.total --format=csv,noheader,nounits';

/** `nvidia-smi --query-gpu=… --format=csv,noheader,nounits` on two 24 GiB GPUs (MiB, no units). */
export const NVIDIA_SMI_OUTPUT = '37, 1536, 24576\n5, 512, 24576\n';

const MIB = 1024 * 1024;

/** What the overview must report for NVIDIA_SMI_OUTPUT. */
export const EXPECTED_GPU = {
  available: true,
  utilization_percent: 21,
  used_bytes: 2048 * MIB,
  total_bytes: 2 * 24576 * MIB,
  detail: '2 GPUs (average utilization, memory summed)',
  detail_code: 'gpu_count',
  params: { count: 2 },
};

/** A directory holding the fake executable; `exitCode` other than 0 makes it fail like a missing driver. */
export function fakeNvidiaSmiDir(options: { exitCode?: number } = {}): string {
  const dir = join(tempDir('switchboard-fake-gpu-'), 'bin');
  mkdirSync(dir);
  const script = [
    '#!/bin/sh',
    `if [ "$*" != "${NVIDIA_SMI_QUERY}" ]; then echo "fake nvidia-smi: unexpected arguments: $*" >&2; exit 2; fi`,
    options.exitCode
      ? `echo "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver." >&2; exit ${options.exitCode}`
      : `printf '${NVIDIA_SMI_OUTPUT.replaceAll('\n', '\\n')}'`,
    '',
  ].join('\n');
  writeFileSync(join(dir, 'nvidia-smi'), script);
  chmodSync(join(dir, 'nvidia-smi'), 0o755);
  return dir;
}

/** PATH with `dir` first. */
export function pathWith(dir: string): string {
  return [dir, process.env.PATH ?? ''].join(delimiter);
}
