/**
 * The service files in packaging/: the systemd unit passes `systemd-analyze verify` (with its
 * ExecStart pointed at an executable that exists here) and scores "OK" or better in
 * `systemd-analyze security`, and the sample config file is one `switchboard serve` accepts.
 * Skipped, with the reason logged, where systemd-analyze is not installed.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect, it } from 'vitest';
import { readConfigFile } from '../../server/config.js';

const ROOT = resolve(import.meta.dirname, '../..');
const UNIT = join(ROOT, 'packaging/systemd/switchboard.service');
const hasAnalyze = spawnSync('systemd-analyze', ['--version'], { stdio: 'ignore' }).status === 0;
if (!hasAnalyze) console.warn('packaging.test.ts: systemd-analyze is not installed; the unit checks are skipped.');

function unitHere(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sb-unit-'));
  const file = join(dir, 'switchboard.service');
  const text = readFileSync(UNIT, 'utf8');
  expect(text).toMatch(/^ExecStart=\/usr\/local\/bin\/switchboard serve /m);
  writeFileSync(file, text.replace('/usr/local/bin/switchboard', `${process.execPath} /dev/null`));
  return file;
}

it.skipIf(!hasAnalyze)('the systemd unit verifies', () => {
  const run = spawnSync('systemd-analyze', ['verify', unitHere()], { encoding: 'utf8' });
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
});

it.skipIf(!hasAnalyze)('the systemd unit is hardened: a dedicated user, state under /var/lib, exposure OK', () => {
  const text = readFileSync(UNIT, 'utf8');
  expect(text).toMatch(/^User=switchboard$/m);
  expect(text).toMatch(/^StateDirectory=switchboard$/m);
  expect(text).toMatch(/--data \/var\/lib\/switchboard/);
  expect(text).toMatch(/^Restart=on-failure$/m);
  const report = execFileSync('systemd-analyze', ['security', '--offline=yes', unitHere()], { encoding: 'utf8' });
  const level = /Overall exposure level for \S+: ([\d.]+)/.exec(report);
  expect(Number(level?.[1])).toBeLessThanOrEqual(4);
});

it('the sample config file is accepted', () => {
  expect(readConfigFile(join(ROOT, 'packaging/systemd/switchboard.toml'))).toMatchObject({
    host: '0.0.0.0',
    port: '8787',
    data: '/var/lib/switchboard',
    log_format: 'json',
  });
});
