/**
 * How the suite runs each real client headless: its own HOME (nothing shared, no vendor login),
 * its config written the way docs/clients.md tells a user to, its base URL pointed at the scripted
 * model, and one prompt. Each function returns the command line to run in `work`.
 */
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { installDir } from './install.mjs';
import type { Transport } from './scenario.js';

export const SUITE = import.meta.dirname;
export const ROOT = resolve(SUITE, '../..');
/** Where install.mjs put the clients (a cache outside the clone, one folder per lockfile). */
const MODULES = join(installDir(), 'node_modules');
const BIN = join(MODULES, '.bin');
export const SKILL = join(ROOT, 'docs/skills/switchboard/SKILL.md');

export type ClientName = 'claude' | 'codex' | 'gemini' | 'qwen' | 'pi';

export const PACKAGES: Record<ClientName | 'mcp-remote', string> = {
  claude: '@anthropic-ai/claude-code',
  codex: '@openai/codex',
  gemini: '@google/gemini-cli',
  qwen: '@qwen-code/qwen-code',
  pi: '@mariozechner/pi-coding-agent',
  'mcp-remote': 'mcp-remote',
};

export const LABELS: Record<ClientName, string> = {
  claude: 'Claude Code',
  codex: 'Codex CLI',
  gemini: 'Gemini CLI',
  qwen: 'Qwen Code',
  pi: 'pi',
};

export function version(name: keyof typeof PACKAGES): string {
  const pkg = JSON.parse(readFileSync(join(MODULES, PACKAGES[name], 'package.json'), 'utf8'));
  return pkg.version as string;
}

export interface Session {
  home: string;
  work: string;
  /** The scripted model's base URL and this session's fake model key. */
  modelUrl: string;
  modelKey: string;
  /** The Switchboard server and the agent key this session uses. */
  serverUrl: string;
  agentKey: string;
  transport: Transport;
  /** Hook commands to install (the client's own hook events), when the hooks are under test. */
  hooks?: boolean;
  prompt: string;
}

export interface Command {
  command: string;
  args: string[];
  env: Record<string, string>;
}

const PROFILE = 'agent';

function write(path: string, text: string, mode = 0o644): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text, { mode });
  chmodSync(path, mode);
}

/** `switchboard` on PATH, as after `npm link`. */
function binDir(session: Session): string {
  const dir = join(session.home, 'bin');
  write(
    join(dir, 'switchboard'),
    `#!/bin/sh\nexec "${process.execPath}" "${join(ROOT, 'dist/node/switchboard.mjs')}" "$@"\n`,
    0o755,
  );
  return dir;
}

/** The profile `switchboard login` would write (default config path under this HOME). */
function profile(session: Session): void {
  write(
    join(session.home, '.config/switchboard/config.json'),
    `${JSON.stringify({ current: PROFILE, profiles: { [PROFILE]: { url: session.serverUrl, api_key: session.agentKey } } })}\n`,
    0o600,
  );
}

export function baseEnv(session: Session): Record<string, string> {
  return {
    PATH: `${binDir(session)}:${dirname(process.execPath)}:/usr/bin:/bin`,
    HOME: session.home,
    LANG: 'C.UTF-8',
    TERM: 'dumb',
    NO_COLOR: '1',
    TMPDIR: join(session.home, 'tmp'),
  };
}

const mcpUrl = (session: Session) => `${session.serverUrl}/mcp`;

/** mcp-remote as a bridge: the key in a header file, not in argv. */
export function bridge(session: Session): { command: string; args: string[] } {
  const headers = join(session.home, 'switchboard-headers.txt');
  write(headers, `Authorization: Bearer ${session.agentKey}\n`, 0o600);
  return { command: join(BIN, 'mcp-remote'), args: [mcpUrl(session), '--header-file', headers] };
}

/** The `mcpServers` entry of the JSON-configured clients. */
function mcpServersEntry(session: Session, urlKey: 'url' | 'httpUrl', extra: Record<string, unknown> = {}) {
  switch (session.transport) {
    case 'stdio':
      return { command: 'switchboard', args: ['mcp'], env: { SWITCHBOARD_PROFILE: PROFILE }, ...extra };
    case 'http':
      return {
        ...(urlKey === 'url' && { type: 'http' }),
        [urlKey]: mcpUrl(session),
        headers: { Authorization: `Bearer ${session.agentKey}` },
        ...extra,
      };
    case 'bridge':
      return { ...bridge(session), ...extra };
    default:
      throw new Error(`no MCP entry for ${session.transport}`);
  }
}

const hookCommand = (every?: number, profile?: string) =>
  `switchboard${profile ? ` --profile ${profile}` : ''} hook${every === undefined ? '' : ` --every ${every}`}`;
/** A hook entry; `timeout` is in seconds for Claude Code and Codex, in milliseconds for Gemini CLI and Qwen Code. */
const hookEntry = (command: string, timeout: number) => [{ hooks: [{ type: 'command', command, timeout }] }];

export function claude(session: Session): Command {
  profile(session);
  const config = join(session.home, 'mcp.json');
  write(config, JSON.stringify({ mcpServers: { switchboard: mcpServersEntry(session, 'url') } }));
  const args = [
    '-p',
    session.prompt,
    '--mcp-config',
    config,
    '--strict-mcp-config',
    '--allowedTools',
    'mcp__switchboard',
  ];
  if (session.hooks) {
    const settings = join(session.home, 'hook-settings.json');
    write(
      settings,
      JSON.stringify({
        hooks: {
          SessionStart: hookEntry(hookCommand(), 30),
          UserPromptSubmit: hookEntry(hookCommand(), 30),
          Stop: hookEntry(hookCommand(0), 30),
        },
      }),
    );
    args.push('--settings', settings);
  }
  return {
    command: join(BIN, 'claude'),
    args,
    env: {
      ...baseEnv(session),
      SWITCHBOARD_PROFILE: PROFILE,
      ANTHROPIC_BASE_URL: session.modelUrl,
      ANTHROPIC_API_KEY: session.modelKey,
      DISABLE_AUTOUPDATER: '1',
      DISABLE_TELEMETRY: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    },
  };
}

const toml = (value: unknown): string => JSON.stringify(value);

/** JSON with every object's keys sorted, as Codex canonicalizes a value before hashing it. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * Codex's trust hash of one command hook, the `currentHash` its `/hooks` review records as
 * `trusted_hash` (codex-rs/hooks discovery, Codex 0.171): the SHA-256 of the hook's normalized
 * definition (the event's snake_case label, no matcher, the one handler with `async` false and its
 * timeout in seconds) as canonical JSON. If a Codex upgrade changes this, the hooks are skipped
 * as "modified" (fail-closed) and the hook checks in the matrix turn ✗: compare with the
 * `currentHash` that `codex app-server` answers to `hooks/list`.
 */
function codexHookHash(event: string, command: string, timeout: number): string {
  const identity = { event_name: event, hooks: [{ type: 'command', command, timeout, async: false }] };
  return `sha256:${createHash('sha256').update(canonicalJson(identity)).digest('hex')}`;
}

/** Codex's hook events, with the snake_case label of its hook keys and trust hashes. */
const CODEX_HOOK_EVENTS = [
  ['SessionStart', 'session_start'],
  ['UserPromptSubmit', 'user_prompt_submit'],
  ['Stop', 'stop'],
] as const;

/**
 * Codex's hooks: `hooks.json` in CODEX_HOME (the Claude Code JSON, `timeout` in seconds), and the
 * trust entries Codex itself writes to config.toml when a person trusts them in `/hooks`. Codex
 * runs no unmanaged hook without one, and `codex exec` skips an untrusted hook without a word.
 * The entries are written here rather than passing `--dangerously-bypass-hook-trust`, so the suite
 * runs what a person who trusted the hooks once runs. The hooks get Codex's own environment (its
 * MCP servers get a filtered one): `--profile` names the account either way.
 */
function codexHooks(codexHome: string): string[] {
  const commands = {
    SessionStart: hookCommand(undefined, PROFILE),
    UserPromptSubmit: hookCommand(undefined, PROFILE),
    Stop: hookCommand(0, PROFILE),
  };
  const hooksFile = join(codexHome, 'hooks.json');
  write(
    hooksFile,
    JSON.stringify({
      hooks: Object.fromEntries(CODEX_HOOK_EVENTS.map(([event]) => [event, hookEntry(commands[event], 30)])),
    }),
  );
  // Codex keys a hook by the canonical path of its file, the event label and its position.
  const source = join(realpathSync(codexHome), 'hooks.json');
  return CODEX_HOOK_EVENTS.flatMap(([event, label]) => [
    '',
    `[hooks.state.${toml(`${source}:${label}:0:0`)}]`,
    `trusted_hash = ${toml(codexHookHash(label, commands[event], 30))}`,
  ]);
}

export function codex(session: Session): Command {
  profile(session);
  const lines = [
    'model = "scripted"',
    'model_provider = "scripted"',
    'approval_policy = "never"',
    'sandbox_mode = "workspace-write"',
    '',
    '[model_providers.scripted]',
    'name = "scripted"',
    `base_url = ${toml(`${session.modelUrl}/v1`)}`,
    'env_key = "SCRIPTED_MODEL_KEY"',
    'wire_api = "responses"',
    '',
    '[mcp_servers.switchboard]',
    'required = true',
    // Headless runs cannot answer an approval prompt: approve the tools (download_file writes a file).
    'default_tools_approval_mode = "approve"',
  ];
  if (session.transport === 'stdio') {
    lines.push(
      'command = "switchboard"',
      'args = ["mcp"]',
      `env = { SWITCHBOARD_PROFILE = ${toml(PROFILE)} }`,
      'env_vars = ["SWITCHBOARD_CONFIG", "XDG_CONFIG_HOME"]',
    );
  } else if (session.transport === 'http') {
    lines.push(`url = ${toml(mcpUrl(session))}`, 'bearer_token_env_var = "SWITCHBOARD_API_KEY"');
  } else {
    const { command, args } = bridge(session);
    lines.push(`command = ${toml(command)}`, `args = ${toml(args)}`);
  }
  const codexHome = join(session.home, '.codex');
  mkdirSync(codexHome, { recursive: true });
  if (session.hooks) lines.push(...codexHooks(codexHome));
  write(join(codexHome, 'config.toml'), `${lines.join('\n')}\n`);
  return {
    command: join(BIN, 'codex'),
    args: ['exec', '--skip-git-repo-check', session.prompt],
    env: {
      ...baseEnv(session),
      CODEX_HOME: codexHome,
      SCRIPTED_MODEL_KEY: session.modelKey,
      ...(session.transport === 'http' && { SWITCHBOARD_API_KEY: session.agentKey }),
    },
  };
}

/** Gemini CLI and Qwen Code share the settings.json shape (Qwen is a fork of Gemini CLI). */
function geminiSettings(session: Session, dir: string, auth: string, stopEvent: string, contextEvent: string) {
  const settings: Record<string, unknown> = {
    security: { auth: { selectedType: auth } },
    privacy: { usageStatisticsEnabled: false },
    general: { disableAutoUpdate: true },
    mcpServers: { switchboard: mcpServersEntry(session, 'httpUrl', { trust: true }) },
  };
  if (session.hooks) {
    settings.hooks = {
      SessionStart: hookEntry(hookCommand(), 30_000),
      [contextEvent]: hookEntry(hookCommand(), 30_000),
      [stopEvent]: hookEntry(hookCommand(0), 30_000),
    };
  }
  write(join(session.home, dir, 'settings.json'), JSON.stringify(settings, null, 2));
  // Headless runs only load MCP servers and hooks in a trusted folder.
  write(join(session.home, dir, 'trustedFolders.json'), JSON.stringify({ [session.work]: 'TRUST_FOLDER' }));
}

export function gemini(session: Session): Command {
  profile(session);
  geminiSettings(session, '.gemini', 'gemini-api-key', 'AfterAgent', 'BeforeAgent');
  return {
    command: join(BIN, 'gemini'),
    args: ['-p', session.prompt, '-m', 'scripted'],
    env: {
      ...baseEnv(session),
      SWITCHBOARD_PROFILE: PROFILE,
      GEMINI_API_KEY: session.modelKey,
      GOOGLE_GEMINI_BASE_URL: session.modelUrl,
    },
  };
}

export function qwen(session: Session): Command {
  profile(session);
  geminiSettings(session, '.qwen', 'openai', 'Stop', 'UserPromptSubmit');
  return {
    command: join(BIN, 'qwen'),
    args: ['-p', session.prompt],
    env: {
      ...baseEnv(session),
      SWITCHBOARD_PROFILE: PROFILE,
      OPENAI_API_KEY: session.modelKey,
      OPENAI_BASE_URL: `${session.modelUrl}/v1`,
      OPENAI_MODEL: 'scripted',
    },
  };
}

export function pi(session: Session): Command {
  profile(session);
  write(
    join(session.home, '.pi/agent/models.json'),
    JSON.stringify({
      providers: {
        scripted: {
          baseUrl: `${session.modelUrl}/v1`,
          api: 'openai-completions',
          apiKey: session.modelKey,
          compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
          models: [{ id: 'scripted' }],
        },
      },
    }),
  );
  const skillDir = join(session.home, '.pi/agent/skills/switchboard');
  mkdirSync(skillDir, { recursive: true });
  copyFileSync(SKILL, join(skillDir, 'SKILL.md'));
  return {
    command: join(BIN, 'pi'),
    args: ['-p', session.prompt, '--provider', 'scripted', '--model', 'scripted', '--no-session'],
    env: { ...baseEnv(session), SWITCHBOARD_PROFILE: PROFILE },
  };
}

export const CLIENTS: Record<ClientName, (session: Session) => Command> = { claude, codex, gemini, qwen, pi };
