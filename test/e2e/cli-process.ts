/** Runs the built `switchboard` CLI as a child process, isolated from the caller's config. */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { CLI, ROOT, tempDir } from './harness.js';

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON (undefined when it is not). */
  json: any;
}

/** A private config file path: tests never read or write the user's real one. */
export function tempConfig(): string {
  return join(tempDir('switchboard-cli-'), 'config.json');
}

/** The environment a CLI child gets: no SWITCHBOARD_* from outside, then `env`. */
export function cliEnv(env: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const base: Record<string, string | undefined> = { ...process.env };
  for (const name of Object.keys(base)) if (name.startsWith('SWITCHBOARD_')) delete base[name];
  const merged = { ...base, ...env };
  for (const [name, value] of Object.entries(merged)) if (value === undefined) delete merged[name];
  return merged;
}

export function runCli(
  args: string[],
  options: { env?: Record<string, string | undefined>; input?: string | Buffer; shell?: boolean } = {},
): Promise<CliRun> {
  const child = options.shell
    ? spawn('/bin/sh', ['-c', args.join(' ')], { cwd: ROOT, env: cliEnv({ ...options.env, CLI }) })
    : spawn(process.execPath, [CLI, ...args], { cwd: ROOT, env: cliEnv(options.env ?? {}) });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => {
    stdout += text;
  });
  child.stderr.setEncoding('utf8').on('data', (text: string) => {
    stderr += text;
  });
  child.stdin.end(options.input ?? '');
  return new Promise((done, fail) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`switchboard ${args.join(' ')} did not finish\n${stderr}`));
    }, 30_000);
    child.on('error', fail);
    child.on('close', (code) => {
      clearTimeout(timer);
      let json: unknown;
      try {
        json = JSON.parse(stdout);
      } catch {
        json = undefined;
      }
      done({ code, stdout, stderr, json });
    });
  });
}

/** A user error is explained on stderr in a line or two, never with a stack trace. */
export function expectNoStack(stderr: string): void {
  if (/^\s+at .+\(.*:\d+:\d+\)$/m.test(stderr) || /^\s+at /m.test(stderr)) {
    throw new Error(`stderr carries a stack trace:\n${stderr}`);
  }
}
