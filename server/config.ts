/**
 * `switchboard serve` settings: a flag wins over its environment variable, which wins over the
 * default (api-v1.md "Running it"). Validation happens before anything starts, so a bad setting
 * is one clear line on stderr and a non-zero exit.
 */
import { resolve } from 'node:path';
import { FIELD_LIMITS } from '../core/lib/limits.js';

export interface ServeFlags {
  host?: string;
  port?: string;
  data?: string;
  tlsCert?: string;
  tlsKey?: string;
}

export interface ServeConfig {
  host: string;
  /** 0 picks a free port. */
  port: number;
  dataDir: string;
  tls?: { certFile: string; keyFile: string };
  /** SWITCHBOARD_ADMIN_PASSWORD: creates administrator `admin` when none exists. */
  adminPassword?: string;
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

export function resolveConfig(flags: ServeFlags, env: NodeJS.ProcessEnv): ServeConfig {
  const host = flags.host ?? (env.SWITCHBOARD_HOST || DEFAULT_HOST);
  if (host.trim() === '') throw new ConfigError('--host must not be empty.');

  let port = DEFAULT_PORT;
  if (flags.port !== undefined) port = parsePort(flags.port, '--port');
  else if (env.SWITCHBOARD_PORT) port = parsePort(env.SWITCHBOARD_PORT, 'SWITCHBOARD_PORT');

  const dataDir = resolve(flags.data ?? (env.SWITCHBOARD_DATA_DIR || DEFAULT_DATA_DIR));

  if ((flags.tlsCert === undefined) !== (flags.tlsKey === undefined)) {
    throw new ConfigError('TLS needs both --tls-cert FILE and --tls-key FILE.');
  }
  const tls =
    flags.tlsCert !== undefined && flags.tlsKey !== undefined
      ? { certFile: resolve(flags.tlsCert), keyFile: resolve(flags.tlsKey) }
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

  return { host, port, dataDir, tls, adminPassword: adminPassword || undefined };
}

/** `http://HOST:PORT`, with IPv6 literals in brackets as URLs require. */
export function publicUrl(host: string, port: number, tls: boolean): string {
  const shown = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return `${tls ? 'https' : 'http'}://${shown}:${port}`;
}
