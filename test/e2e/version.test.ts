/**
 * `switchboard --version` of the built CLI prints the version of package.json, and CHANGELOG.md
 * keeps an Unreleased section and a section for that version (Keep a Changelog).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, ROOT } from './harness.js';

const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };

describe('version', () => {
  it('switchboard --version matches package.json', () => {
    for (const flag of ['--version', '-V']) {
      expect(execFileSync(process.execPath, [CLI, flag], { encoding: 'utf8' }).trim()).toBe(version);
    }
  });

  it('CHANGELOG.md has an Unreleased section and one for the current version', () => {
    const changelog = readFileSync(join(ROOT, 'CHANGELOG.md'), 'utf8');
    const headings = [...changelog.matchAll(/^## \[([^\]]+)\]/gm)].map((m) => m[1]);
    expect(headings[0]).toBe('Unreleased');
    expect(headings).toContain(version);
  });
});
