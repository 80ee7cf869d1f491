/**
 * Which directories the MCP server's tools may read and write (mcp/file-access.ts enforces it):
 * `--allow-dir`, else SWITCHBOARD_MCP_ALLOWED_DIRS, else the working directory.
 */
import { delimiter, dirname, parse, resolve } from 'node:path';
import { configPath, type Env } from '../client/config.js';

export const ALLOWED_DIRS_ENV = 'SWITCHBOARD_MCP_ALLOWED_DIRS';
export const ALLOW_DIR_FLAG = '--allow-dir';

export interface FilePolicy {
  /** Allowed directories, absolute, as configured (resolved to real paths at each call). */
  roots: string[];
  /** Where they came from, for messages: the flag, the variable, or the working directory. */
  source: 'flag' | 'env' | 'cwd';
  /** Relative paths in tool calls resolve against this directory. */
  cwd: string;
  /** The config file in use (SWITCHBOARD_CONFIG or the platform default). */
  configPath: string;
}

/**
 * `--allow-dir` (repeatable) wins over SWITCHBOARD_MCP_ALLOWED_DIRS (a list separated like PATH),
 * which wins over the working directory. The setting replaces the default: list `.` to keep it.
 * A working directory that is the filesystem root (how some desktop apps start MCP servers)
 * allows nothing: the whole disk is not a sensible default.
 */
export function filePolicy(options: { allowDirs?: readonly string[]; env: Env; cwd?: string }): FilePolicy {
  const cwd = resolve(options.cwd ?? process.cwd());
  const fromEnv = (options.env[ALLOWED_DIRS_ENV] ?? '').split(delimiter).filter((dir) => dir.trim() !== '');
  let source: FilePolicy['source'] = 'cwd';
  let dirs: string[] = parse(cwd).root === cwd ? [] : [cwd];
  if (options.allowDirs && options.allowDirs.length > 0) {
    source = 'flag';
    dirs = [...options.allowDirs];
  } else if (fromEnv.length > 0) {
    source = 'env';
    dirs = fromEnv;
  }
  return {
    roots: dirs.map((dir) => resolve(cwd, dir)),
    source,
    cwd,
    configPath: resolve(cwd, configPath(options.env)),
  };
}

/** One line for the MCP client's log at start-up. */
export function describePolicy(policy: FilePolicy): string {
  if (policy.roots.length === 0) {
    return `file_path/out_path are refused: the working directory is ${policy.cwd}; ${HOW_TO_ALLOW}`;
  }
  const origin = { flag: `from ${ALLOW_DIR_FLAG}`, env: `from ${ALLOWED_DIRS_ENV}`, cwd: 'the working directory' };
  return `file_path/out_path limited to ${policy.roots.join(', ')} (${origin[policy.source]}), never the config directory ${dirname(policy.configPath)}`;
}

export const HOW_TO_ALLOW =
  `to allow a directory, add "${ALLOW_DIR_FLAG}", "/path/to/dir" to the server's args (repeatable) or set ` +
  `${ALLOWED_DIRS_ENV}=/path/to/dir (several separated by "${delimiter}") in the MCP client's config for switchboard, ` +
  'then restart the server';
