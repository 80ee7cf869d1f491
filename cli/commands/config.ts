/**
 * `switchboard login` and `switchboard config …`: the hand-written part of the CLI, because they
 * manage the local config file rather than call one API operation.
 */
import type { Command } from 'commander';
import {
  checkProfileName,
  configPath,
  DEFAULT_PROFILE,
  type Env,
  maskKey,
  normalizeUrl,
  readConfig,
  resolveProfile,
  updateProfile,
  writeConfig,
} from '../../client/config.js';
import { configError, EXIT, usageError } from '../../client/errors.js';
import { callOperation } from '../../client/http.js';
import { operations } from '../../core/contract/index.js';
import { dropTrailingNewline, type InputStream, readAll } from '../lib/terminal.js';
import { describeApiError, type Output, printJson } from './execute.js';
import type { GlobalOptions } from './operations.js';

export interface ConfigRuntime extends Output {
  env: Env;
  stdin: InputStream;
  setExitCode(code: number): void;
}

interface LoginFlags {
  url: string;
  key?: string;
  keyStdin?: boolean;
  verify: boolean;
}

function targetProfile(globals: GlobalOptions, env: Env, path: string): string {
  return checkProfileName(globals.profile ?? (env.SWITCHBOARD_PROFILE || readConfig(path).current || DEFAULT_PROFILE));
}

export function registerConfigCommands(program: Command, runtime: ConfigRuntime): void {
  program
    .command('login')
    .description(
      'Save a server URL and agent API key as a profile in the global config file (verifies the key with GET /me)',
    )
    .requiredOption('--url <url>', 'server URL, e.g. http://127.0.0.1:8787')
    .option('--key <key>', 'agent API key (sbk_…); prefer --key-stdin, argv is visible to other local users')
    .option('--key-stdin', 'read the API key from stdin')
    .option('--no-verify', 'save without calling the server')
    .action(async (flags: LoginFlags, command: Command) => {
      const globals = command.optsWithGlobals<GlobalOptions>();
      const path = configPath(runtime.env);
      const name = targetProfile(globals, runtime.env, path);
      const url = normalizeUrl(flags.url);
      if (flags.key !== undefined && flags.keyStdin) throw usageError('give --key or --key-stdin, not both');
      const key = flags.keyStdin ? dropTrailingNewline(await readAll(runtime.stdin)).trim() : flags.key;
      if (key === '') throw usageError('the API key is empty');

      let agent: unknown = null;
      if (key !== undefined && flags.verify) {
        const result = await callOperation(
          { op: operations.getMe, input: { params: {}, query: {}, body: {} }, timeoutMs: 30_000 },
          { url, apiKey: key },
        );
        if (result.kind === 'error') {
          runtime.stderr.write(`${describeApiError('agent', result.status, result.body)}\n`);
          runtime.stderr.write('switchboard: nothing was saved\n');
          runtime.setExitCode(EXIT.request);
          return;
        }
        agent = result.data;
      }
      const previous = readConfig(path).profiles[name];
      const config = updateProfile(path, name, {
        url,
        ...(key !== undefined && { api_key: key }),
        // A session belongs to one server.
        ...(previous && previous.url !== url && { admin_cookie: undefined }),
      });
      const saved = config.profiles[name];
      printJson(runtime.stdout, {
        profile: name,
        current: config.current === name,
        config_path: path,
        url,
        api_key: saved?.api_key ? maskKey(saved.api_key) : null,
        agent,
      });
    });

  const config = program.command('config').description('Show and choose profiles of the global config file');

  config
    .command('show')
    .description('The profile in use, after environment overrides (the API key is masked)')
    .action((_flags: unknown, command: Command) => {
      const resolved = resolveProfile(command.optsWithGlobals<GlobalOptions>().profile, runtime.env);
      printJson(runtime.stdout, {
        config_path: resolved.configPath,
        profile: resolved.profileName,
        stored: resolved.stored,
        url: resolved.url ?? null,
        url_source: resolved.sources.url,
        api_key: resolved.apiKey ? maskKey(resolved.apiKey) : null,
        api_key_source: resolved.sources.apiKey,
        // Variables that --profile overrode (they named another server or key).
        ignored_env: resolved.ignored,
        admin_signed_in: resolved.adminCookie !== undefined,
      });
    });

  config
    .command('list')
    .description('Every profile in the config file')
    .action(() => {
      const path = configPath(runtime.env);
      const file = readConfig(path);
      printJson(runtime.stdout, {
        config_path: path,
        current: file.current ?? null,
        profiles: Object.entries(file.profiles).map(([name, profile]) => ({
          name,
          url: profile.url,
          api_key: profile.api_key ? maskKey(profile.api_key) : null,
          admin_signed_in: profile.admin_cookie !== undefined,
        })),
      });
    });

  config
    .command('use')
    .description('Make a profile the default (SWITCHBOARD_PROFILE and --profile still win)')
    .argument('<name>', 'profile name')
    .action((name: string) => {
      const path = configPath(runtime.env);
      const file = readConfig(path);
      if (!file.profiles[name]) throw configError(`no profile "${name}" in ${path}`);
      file.current = name;
      writeConfig(path, file);
      printJson(runtime.stdout, { config_path: path, current: name });
    });

  config
    .command('remove')
    .description('Delete a profile (its key and administrator session) from the config file')
    .argument('<name>', 'profile name')
    .action((name: string) => {
      const path = configPath(runtime.env);
      const file = readConfig(path);
      if (!file.profiles[name]) throw configError(`no profile "${name}" in ${path}`);
      delete file.profiles[name];
      if (file.current === name) delete file.current;
      writeConfig(path, file);
      printJson(runtime.stdout, { config_path: path, removed: name, current: file.current ?? null });
    });
}
