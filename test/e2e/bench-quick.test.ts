/**
 * `npm run bench -- --quick` as a smoke test: every benchmark phase (open-loop mix, ramp,
 * closed-loop ceilings with CPU from /proc, the upload's memory, idle memory, the scale phases of
 * scripts/bench-scale.mjs) runs against the real server at tiny sizes and must complete with zero
 * errors. No speed threshold: speed is `npm run bench`'s
 * business, on a machine whose load the report records.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ROOT, tempDir } from './harness.js';

const run = promisify(execFile);

describe.skipIf(process.platform !== 'linux')('npm run bench -- --quick', () => {
  it('completes every phase with zero errors', { timeout: 300_000 }, async () => {
    const json = join(tempDir('switchboard-bench-quick-'), 'quick.json');
    const { stdout } = await run(process.execPath, ['scripts/bench.mjs', '--quick', '--json', json], {
      cwd: ROOT,
      maxBuffer: 10 * 1024 * 1024,
    }).catch((error) => {
      throw new Error(`bench --quick failed:\n${error.stdout}\n${error.stderr}`);
    });
    const results = JSON.parse(readFileSync(json, 'utf8'));
    expect(results.problems, stdout).toEqual([]);
    expect(results.req49.errors).toBe(0);
    expect(results.req49.requests).toBe(results.plan.req49.rate * results.plan.req49.seconds);
    expect(results.ramp.length).toBeGreaterThan(0);
    // Every operation of the mix was exercised somewhere in the run.
    const ops = new Set([results.req49, ...results.ramp].flatMap((r) => Object.keys(r.byOp)));
    expect([...ops].sort()).toEqual(['ack', 'claim', 'direct', 'directory', 'group', 'history', 'inbox']);
    for (const step of results.ramp) expect(step.errors).toBe(0);
    for (const ceiling of results.closed) {
      expect(ceiling.errors).toBe(0);
      expect(ceiling.requests).toBeGreaterThan(0);
      // CPU was read from /proc for both server processes (0 would mean the wrong pids).
      expect(ceiling.workerdCpuMs).toBeGreaterThan(0);
      expect(ceiling.launcherCpuMs).toBeGreaterThan(0);
    }
    // Idle memory: read from /proc for the launcher and workerd, then with stored messages.
    expect(results.memory.idle.processes.map((p: { comm: string }) => p.comm)).toContain('workerd');
    expect(results.memory.idle.rssMb).toBeGreaterThan(0);
    expect(results.memory.growth).toHaveLength(1);
    // Start-up: each command and its bare counterpart ran (the phase throws on a failed run).
    expect(Object.keys(results.startup.commands)).toHaveLength(3);
    for (const row of Object.values<any>(results.startup.commands)) expect(row.builds.current.runs).toBeGreaterThan(0);
    expect(results.upload).toMatchObject({ ok: true, status: 200 });
    expect(results.upload.peakMb).toBeGreaterThan(0);
    expect(results.upload.processes.map((p: { comm: string }) => p.comm)).toContain('workerd');
    expect(results.upload.again).toMatchObject({ ok: true, status: 200 });
    // The floor under it: the same bytes through a bare worker in the same Miniflare, stored whole.
    expect(results.upload.floor.put).toMatchObject({ ok: true, bytes: results.upload.bytes });
    expect(results.upload.floor.putAndCopy).toMatchObject({ ok: true, bytes: results.upload.bytes });
    expect(results.upload.floor.put.peakMb).toBeGreaterThan(0);
    // The import: every agent created, a bad row refused whole, the sampled keys work.
    expect(results.import).toMatchObject({ agents: 40, problems: [] });
    // The scale phases: right counts, exclusive claims, a complete cleanup with its files deleted.
    const { inbox, cleanup } = results.scale;
    expect(inbox).toMatchObject({ errors: 0, problems: [] });
    expect(inbox.rows).toHaveLength(4);
    expect(cleanup.completedMs).toBeGreaterThan(0);
    expect(cleanup.runningSamples).toBeGreaterThan(0);
    expect(cleanup.channelsNotAtCap).toBe(0);
    expect(cleanup.r2Objects).toBe(cleanup.expectedR2Objects);
    expect(cleanup.expectedR2Objects).toBeLessThan(cleanup.files);
  });
});
