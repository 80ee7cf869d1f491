/**
 * Bad CLI input never produces a stack trace: one clear line on stderr and the documented
 * non-zero exit code (client/errors.ts). None of these needs a running server.
 */

import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../client/errors.js';
import { expectNoStack, runCli, tempConfig } from './cli-process.js';

async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((done) => probe.listen(0, '127.0.0.1', done));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((done) => probe.close(() => done()));
  return port;
}

describe('bad CLI input', () => {
  it('an unknown flag: exit 2, commander names the flag', async () => {
    const run = await runCli(['me', '--frobnicate'], { env: { SWITCHBOARD_CONFIG: tempConfig() } });
    expect(run.code).toBe(EXIT.usage);
    expect(run.stderr).toMatch(/unknown option '--frobnicate'/);
    expect(run.stdout).toBe('');
    expectNoStack(run.stderr);
  });

  it('an unknown command and a malformed value: exit 2', async () => {
    const unknown = await runCli(['sned'], { env: { SWITCHBOARD_CONFIG: tempConfig() } });
    expect(unknown.code).toBe(EXIT.usage);
    expect(unknown.stderr).toMatch(/unknown command 'sned'/);
    const value = await runCli(['claim', '--limit', 'lots'], { env: { SWITCHBOARD_CONFIG: tempConfig() } });
    expect(value.code).toBe(EXIT.usage);
    expect(value.stderr).toMatch(/--limit.*Not a number/);
    expectNoStack(value.stderr);
  });

  it('no configuration at all: exit 2, says how to log in', async () => {
    const run = await runCli(['me'], { env: { SWITCHBOARD_CONFIG: tempConfig() } });
    expect(run.code).toBe(EXIT.usage);
    expect(run.stderr).toMatch(/no server URL for profile "default".*switchboard login/);
    expectNoStack(run.stderr);
  });

  it('a missing API key: exit 2, nothing sent', async () => {
    const port = await closedPort();
    const run = await runCli(['inbox'], {
      env: { SWITCHBOARD_CONFIG: tempConfig(), SWITCHBOARD_URL: `http://127.0.0.1:${port}` },
    });
    expect(run.code).toBe(EXIT.usage);
    expect(run.stderr).toMatch(/no API key configured/);
    expectNoStack(run.stderr);
  });

  it('an unreachable server: exit 5 with the reason', async () => {
    const port = await closedPort();
    const run = await runCli(['me'], {
      env: {
        SWITCHBOARD_CONFIG: tempConfig(),
        SWITCHBOARD_URL: `http://127.0.0.1:${port}`,
        SWITCHBOARD_API_KEY: 'sbk_x.y',
      },
    });
    expect(run.code).toBe(EXIT.unreachable);
    expect(run.stderr).toMatch(new RegExp(`cannot reach http://127.0.0.1:${port}: connection refused`));
    expectNoStack(run.stderr);
  });

  it('a nonexistent file: exit 2, named, before any connection', async () => {
    const port = await closedPort();
    const run = await runCli(['send', '--to', 'agt_someone', '--file', '/no/such/dir/report.pdf', 'hi'], {
      env: {
        SWITCHBOARD_CONFIG: tempConfig(),
        SWITCHBOARD_URL: `http://127.0.0.1:${port}`,
        SWITCHBOARD_API_KEY: 'sbk_x.y',
      },
    });
    expect(run.code).toBe(EXIT.usage);
    expect(run.stderr).toMatch(/cannot read --file \/no\/such\/dir\/report\.pdf: no such file or directory/);
    expectNoStack(run.stderr);
  });

  it('a broken config file and an unknown profile: exit 2, named', async () => {
    const broken = tempConfig();
    writeFileSync(broken, '{"profiles": ');
    const run = await runCli(['me'], { env: { SWITCHBOARD_CONFIG: broken } });
    expect(run.code).toBe(EXIT.usage);
    expect(run.stderr).toMatch(/is not valid JSON/);
    const missing = await runCli(['me', '--profile', 'ghost'], { env: { SWITCHBOARD_CONFIG: tempConfig() } });
    expect(missing.code).toBe(EXIT.usage);
    expect(missing.stderr).toMatch(/no profile "ghost"/);
    expectNoStack(run.stderr + missing.stderr);
  });

  it('ack with nothing to acknowledge on stdin: nothing sent, exit 0, empty results', async () => {
    // The server URL answers nothing: a request would end in exit 5 (unreachable).
    for (const input of ['{"claims":[]}', '']) {
      const run = await runCli(['ack'], {
        env: { SWITCHBOARD_CONFIG: tempConfig(), SWITCHBOARD_URL: 'http://127.0.0.1:9', SWITCHBOARD_API_KEY: 'k' },
        input,
      });
      expect(run.code, run.stderr).toBe(EXIT.ok);
      expect(run.json).toEqual({ results: [] });
      expect(run.stderr).toMatch(/nothing sent/);
    }
  });
});
