/**
 * `switchboard serve` settings: a flag wins over its environment variable, which wins over the
 * `--config` file, which wins over the default (api-v1.md "Running it as a service"). Validation
 * happens before anything starts, so a bad setting is one clear line on stderr and a non-zero exit.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parse as parseToml, TomlError } from 'smol-toml';
import { FIELD_LIMITS } from '../core/lib/limits.js';
import { LOG_FORMATS, type LogFormat } from './log.js';

export interface ServeFlags {
  host?: string;
  port?: string;
  data?: string;
  tlsCert?: string;
  tlsKey?: string;
  logFormat?: string;
  config?: string;
}

/** The keys of a `--config` TOML file: the flags' names in snake case. */
const FILE_KEYS = ['host', 'port', 'data', 'tls_cert', 'tls_key', 'log_format'] as const;
type FileKey = (typeof FILE_KEYS)[number];
type FileSettings = Partial<Record<FileKey, string>>;

export interface ServeConfig {
  host: string;
  /** 0 picks a free port. */
  port: number;
  dataDir: string;
  tls?: { certFile: string; keyFile: string };
  /** SWITCHBOARD_ADMIN_PASSWORD: creates administrator `admin` when none exists. */
  adminPassword?: string;
  logFormat: LogFormat;
}

export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 8787;
export const DEFAULT_DATA_DIR = './data';

export class ConfigError extends Error {}

function parsePort(text: string, source: string): number {
  if (!/^\d{1,5}$/.test(text) || Number(text) > 65535) {
    throw new ConfigError(`${source} must be a port number from 0 to 65535 (0 picks a free port), not "${text}".`);
  }
  return Number(text);
}

function parseLogFormat(text: string, source: string): LogFormat {
  if (!(LOG_FORMATS as readonly string[]).includes(text)) {
    throw new ConfigError(`${source} must be ${LOG_FORMATS.join(' or ')}, not "${text}".`);
  }
  return text as LogFormat;
}

/**
 * A `--config` file, checked whole: TOML syntax, no unknown key, each value of its type. Paths in
 * it are relative to the file's own folder (a service manager starts us from anywhere).
 */
export function readConfigFile(file: string): FileSettings {
  const where = `--config ${file}`;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(
      `${where}: cannot read it (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}).`,
    );
  }
  let table: Record<string, unknown>;
  try {
    table = parseToml(text);
  } catch (error) {
    const detail = error instanceof TomlError ? `line ${error.line}, column ${error.column}` : (error as Error).message;
    throw new ConfigError(`${where}: not valid TOML (${detail}).`);
  }
  const settings: FileSettings = {};
  const base = dirname(resolve(file));
  for (const [key, value] of Object.entries(table)) {
    if (!(FILE_KEYS as readonly string[]).includes(key)) {
      throw new ConfigError(`${where}: unknown key "${key}" (the keys are ${FILE_KEYS.join(', ')}).`);
    }
    if (key === 'port') {
      if (typeof value !== 'number' || !Number.isInteger(value)) {
        throw new ConfigError(`${where}: port must be a whole number from 0 to 65535.`);
      }
      settings.port = String(value);
      continue;
    }
    if (typeof value !== 'string' || value === '') {
      throw new ConfigError(`${where}: ${key} must be a non-empty string.`);
    }
    const isPath = key === 'data' || key === 'tls_cert' || key === 'tls_key';
    settings[key as FileKey] = isPath ? resolve(base, value) : value;
  }
  return settings;
}

export function resolveConfig(flags: ServeFlags, env: NodeJS.ProcessEnv): ServeConfig {
  const file = flags.config !== undefined ? readConfigFile(flags.config) : {};
  const fileSource = (key: FileKey) => `${key} in --config ${flags.config}`;

  const host = flags.host ?? (env.SWITCHBOARD_HOST || file.host || DEFAULT_HOST);
  if (host.trim() === '') throw new ConfigError('--host must not be empty.');

  let port = DEFAULT_PORT;
  if (flags.port !== undefined) port = parsePort(flags.port, '--port');
  else if (env.SWITCHBOARD_PORT) port = parsePort(env.SWITCHBOARD_PORT, 'SWITCHBOARD_PORT');
  else if (file.port !== undefined) port = parsePort(file.port, fileSource('port'));

  const dataDir = resolve(flags.data ?? (env.SWITCHBOARD_DATA_DIR || file.data || DEFAULT_DATA_DIR));

  let logFormat: LogFormat = 'text';
  if (flags.logFormat !== undefined) logFormat = parseLogFormat(flags.logFormat, '--log-format');
  else if (env.SWITCHBOARD_LOG_FORMAT) logFormat = parseLogFormat(env.SWITCHBOARD_LOG_FORMAT, 'SWITCHBOARD_LOG_FORMAT');
  else if (file.log_format !== undefined) logFormat = parseLogFormat(file.log_format, fileSource('log_format'));

  // The certificate and its key come as a pair, from the flags or else from the file.
  const fromFlags = flags.tlsCert !== undefined || flags.tlsKey !== undefined;
  const tlsCert = fromFlags ? flags.tlsCert : file.tls_cert;
  const tlsKey = fromFlags ? flags.tlsKey : file.tls_key;
  if ((tlsCert === undefined) !== (tlsKey === undefined)) {
    throw new ConfigError(
      fromFlags
        ? 'TLS needs both --tls-cert FILE and --tls-key FILE.'
        : `TLS needs both tls_cert and tls_key in --config ${flags.config}.`,
    );
  }
  const tls =
    tlsCert !== undefined && tlsKey !== undefined
      ? { certFile: resolve(tlsCert), keyFile: resolve(tlsKey) }
      : undefined;

  // The bounds of the API's setup operation and the console's setup form.
  const adminPassword = env.SWITCHBOARD_ADMIN_PASSWORD;
  if (adminPassword !== undefined && adminPassword !== '') {
    if (adminPassword.length < FIELD_LIMITS.admin_password_min) {
      throw new ConfigError(
        `SWITCHBOARD_ADMIN_PASSWORD is too short: the administrator password needs at least ${FIELD_LIMITS.admin_password_min} characters.`,
      );
    }
    if (adminPassword.length > FIELD_LIMITS.admin_password_max) {
      throw new ConfigError(
        `SWITCHBOARD_ADMIN_PASSWORD is too long (at most ${FIELD_LIMITS.admin_password_max} characters).`,
      );
    }
  }

  return { host, port, dataDir, tls, adminPassword: adminPassword || undefined, logFormat };
}

/** `http://HOST:PORT`, with IPv6 literals in brackets as URLs require. */
export function publicUrl(host: string, port: number, tls: boolean): string {
  const shown = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return `${tls ? 'https' : 'http'}://${shown}:${port}`;
}
