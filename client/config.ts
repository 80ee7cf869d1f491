/**
 * Global CLI configuration (REQ-07): one file in the user's config directory with named profiles,
 * so every session of one CLI agent on a machine uses the same account. Environment variables
 * override it, which is how an MCP client or a test points a process at a profile or a server.
 */
import { chmodSync, mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { configError, describeFsError } from './errors.js';

export interface Profile {
  url: string;
  api_key?: string;
  /** `name=value` pairs of the administrator session (Cookie header form). */
  admin_cookie?: string;
}

export interface ConfigFile {
  current?: string;
  profiles: Record<string, Profile>;
}

export type Env = Readonly<Record<string, string | undefined>>;

export const DEFAULT_PROFILE = 'default';
const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export function configPath(env: Env = process.env, platform: NodeJS.Platform = process.platform): string {
  if (env.SWITCHBOARD_CONFIG) return env.SWITCHBOARD_CONFIG;
  if (platform === 'win32') {
    const appData = env.APPDATA || join(env.USERPROFILE || homedir(), 'AppData', 'Roaming');
    return join(appData, 'switchboard', 'config.json');
  }
  const base = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config');
  return join(base, 'switchboard', 'config.json');
}

export function checkProfileName(name: string): string {
  if (!PROFILE_NAME.test(name)) {
    throw configError(`invalid profile name "${name}": use letters, digits, dot, dash, underscore (up to 64)`);
  }
  return name;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function readConfig(path: string): ConfigFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { profiles: {} };
    throw configError(`cannot read the config file ${describeFsError(error, path)}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw configError(`the config file ${path} is not valid JSON; fix or delete it`);
  }
  if (!isRecord(parsed) || (parsed.profiles !== undefined && !isRecord(parsed.profiles))) {
    throw configError(`the config file ${path} is not a Switchboard config ({"current", "profiles": {...}})`);
  }
  const profiles: Record<string, Profile> = {};
  for (const [name, raw] of Object.entries(parsed.profiles ?? {})) {
    if (!isRecord(raw) || typeof raw.url !== 'string') {
      throw configError(`profile "${name}" in ${path} needs a "url" string`);
    }
    const profile: Profile = { url: raw.url };
    if (typeof raw.api_key === 'string') profile.api_key = raw.api_key;
    if (typeof raw.admin_cookie === 'string') profile.admin_cookie = raw.admin_cookie;
    profiles[name] = profile;
  }
  const config: ConfigFile = { profiles };
  if (typeof parsed.current === 'string') config.current = parsed.current;
  return config;
}

/**
 * Writes the whole file atomically (temp file + rename) with mode 0600 in a 0700 directory: it
 * holds API keys and an administrator session.
 */
export function writeConfig(path: string, config: ConfigFile): void {
  const temp = `${path}.${process.pid}.tmp`;
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    writeFileSync(temp, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
    chmodSync(temp, 0o600);
    renameSync(temp, path);
  } catch (error) {
    try {
      unlinkSync(temp);
    } catch {
      // The temp file may never have been created.
    }
    throw configError(`cannot write the config file ${describeFsError(error, path)}`);
  }
}

/** Read-modify-write of one profile; `undefined` in the patch removes that key. */
export function updateProfile(
  path: string,
  name: string,
  patch: Partial<Record<keyof Profile, string | undefined>>,
  options: { makeCurrent?: boolean } = {},
): ConfigFile {
  const config = readConfig(path);
  const existing = config.profiles[name];
  const url = patch.url ?? existing?.url;
  if (url === undefined) throw configError(`profile "${name}" has no URL: run \`switchboard login --url URL\``);
  const next: Profile = { ...existing, url };
  for (const key of ['api_key', 'admin_cookie'] as const) {
    if (key in patch) {
      const value = patch[key];
      if (value === undefined) delete next[key];
      else next[key] = value;
    }
  }
  config.profiles[name] = next;
  if (options.makeCurrent || config.current === undefined) config.current = name;
  writeConfig(path, config);
  return config;
}

export type Source = 'env' | 'profile' | 'none';

/** The connection a command uses: the profile's values with environment overrides applied. */
export interface Resolved {
  configPath: string;
  profileName: string;
  /** The profile exists in the config file. */
  stored: boolean;
  url?: string;
  apiKey?: string;
  adminCookie?: string;
  sources: { url: Source; apiKey: Source };
  /** SWITCHBOARD_URL / SWITCHBOARD_API_KEY values that `--profile` overrode. */
  ignored: string[];
}

/** Both sides as `login` stores a URL, so that a trailing slash is no disagreement. */
function sameUrl(a: string, b: string): boolean {
  const tidy = (url: string) => {
    try {
      return normalizeUrl(url);
    } catch {
      return url;
    }
  };
  return tidy(a) === tidy(b);
}

/**
 * Which profile: `--profile` > SWITCHBOARD_PROFILE > the file's `current` > "default".
 *
 * Which URL and key:
 * - No explicit profile (the file's `current`, or "default"): SWITCHBOARD_URL and
 *   SWITCHBOARD_API_KEY override the profile's values (with no config file at all, they are the
 *   whole connection).
 * - An explicit profile that is in the file: its own URL and key. A variable only fills in a value
 *   the profile does not have. One that differs from the stored value is ignored after
 *   `--profile` (the flag wins; `config show` and `switchboard mcp` say so), and refused after
 *   SWITCHBOARD_PROFILE: two environment variables naming two different accounts or servers is a
 *   mix-up (typically a key inherited from the shell), so nothing is sent until one is unset.
 * - An explicit profile that is not in the file: SWITCHBOARD_URL (and SWITCHBOARD_API_KEY) are the
 *   connection, as with no profile; without SWITCHBOARD_URL that is an error.
 */
export function resolveProfile(flagProfile: string | undefined, env: Env = process.env): Resolved {
  const path = configPath(env);
  const config = readConfig(path);
  const fromEnv = flagProfile === undefined && !!env.SWITCHBOARD_PROFILE;
  const explicit = flagProfile ?? (env.SWITCHBOARD_PROFILE || undefined);
  const profileName = checkProfileName(explicit ?? config.current ?? DEFAULT_PROFILE);
  const profile = config.profiles[profileName];
  let envUrl = env.SWITCHBOARD_URL || undefined;
  let envKey = env.SWITCHBOARD_API_KEY || undefined;
  if (explicit && !profile && !envUrl) {
    const known = Object.keys(config.profiles);
    throw configError(
      `no profile "${profileName}" in ${path}` +
        (known.length ? ` (profiles: ${known.join(', ')})` : '; run `switchboard login --url URL --key KEY`'),
    );
  }
  const ignored: string[] = [];
  if (explicit && profile) {
    const urlDiffers = envUrl !== undefined && !sameUrl(envUrl, profile.url);
    const keyDiffers = envKey !== undefined && profile.api_key !== undefined && envKey !== profile.api_key;
    if (fromEnv && (urlDiffers || keyDiffers)) {
      const variable = keyDiffers ? 'SWITCHBOARD_API_KEY' : 'SWITCHBOARD_URL';
      const what = keyDiffers ? 'API key' : 'URL';
      throw configError(
        `SWITCHBOARD_PROFILE=${profileName} and ${variable} disagree: profile "${profileName}" in ${path} has ` +
          `another ${what}; unset ${variable} (often inherited from a shell), or SWITCHBOARD_PROFILE, ` +
          'or choose with --profile',
      );
    }
    if (urlDiffers) {
      ignored.push('SWITCHBOARD_URL');
      envUrl = undefined;
    }
    if (keyDiffers) {
      ignored.push('SWITCHBOARD_API_KEY');
      envKey = undefined;
    }
  }
  // An explicit stored profile first; otherwise the variables first.
  const pick = (stored: string | undefined, variable: string | undefined): [string | undefined, Source] => {
    const order: [string | undefined, Source][] = explicit
      ? [
          [stored, 'profile'],
          [variable, 'env'],
        ]
      : [
          [variable, 'env'],
          [stored, 'profile'],
        ];
    return order.find(([value]) => value !== undefined) ?? [undefined, 'none'];
  };
  const [url, urlSource] = pick(profile?.url, envUrl);
  const [apiKey, keySource] = pick(profile?.api_key, envKey);
  const resolved: Resolved = {
    configPath: path,
    profileName,
    stored: profile !== undefined,
    sources: { url: urlSource, apiKey: keySource },
    ignored,
  };
  if (url !== undefined) resolved.url = url;
  if (apiKey !== undefined) resolved.apiKey = apiKey;
  if (profile?.admin_cookie) resolved.adminCookie = profile.admin_cookie;
  return resolved;
}

/** `sbk_agt_x.secret` -> `sbk_agt_x.…(44 chars)`: enough to tell keys apart, useless to an attacker. */
export function maskKey(key: string): string {
  const dot = key.indexOf('.');
  if (dot > 0) return `${key.slice(0, dot)}.…(${key.length - dot - 1} chars hidden)`;
  return `…(${key.length} chars hidden)`;
}

export function normalizeUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw configError(`"${raw}" is not a URL (e.g. http://127.0.0.1:8787)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw configError(`"${raw}" must be an http:// or https:// URL`);
  }
  return url.origin + url.pathname.replace(/\/+$/, '');
}
