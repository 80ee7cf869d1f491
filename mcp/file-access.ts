/**
 * Where the MCP server may read and write local files. A tool's `file_path`/`out_path` is chosen
 * by a model that reads messages from other agents, so a peer can ask for any path: the config
 * file with every profile's API key, `~/.ssh`, a symlink planted to look harmless. The server
 * therefore reads and writes only under the directories its user allowed (`--allow-dir`, else
 * SWITCHBOARD_MCP_ALLOWED_DIRS, else the working directory), never the Switchboard config file or
 * anything in its directory, and checks the real path of what it actually opened, so a symlink,
 * a `..`, a symlinked parent or a file swapped between the check and the open cannot leave the
 * allowed tree. The CLI does not use this: there a human types the path.
 */
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openAsBlob,
  openSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  type Stats,
  statSync,
  unlinkSync,
} from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { describeFsError, fileError, LocalError } from '../client/errors.js';
import {
  type FileAccess,
  type FileInputNames,
  type LocalUpload,
  mediaTypeFor,
  checkDestination as plainCheckDestination,
} from '../client/files.js';

/** Messages name the tool fields, never the CLI's flags. */
const MCP_FILE_NAMES: FileInputNames = { file: 'file_path', out: 'out_path', overwrite: 'overwrite' };

// The policy itself lives apart, so that `switchboard mcp` can start without the file code.
import { type FilePolicy, HOW_TO_ALLOW } from './file-policy.js';

export { ALLOW_DIR_FLAG, ALLOWED_DIRS_ENV, describePolicy, type FilePolicy, filePolicy } from './file-policy.js';

export const PATH_NOT_ALLOWED = 'path_not_allowed';

function refuse(message: string, field: string): LocalError {
  return new LocalError(PATH_NOT_ALLOWED, message, field);
}

/**
 * Control characters, bidirectional overrides, zero-width and other invisible format characters
 * and line separators make a path read differently from what it opens; no real file needs them.
 */
const HIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;

/** `child` is `dir` or inside it (both absolute and normalized). */
function isWithin(child: string, dir: string): boolean {
  const rel = relative(dir, child);
  return rel === '' || (!isAbsolute(rel) && rel !== '..' && !rel.startsWith(`..${sep}`));
}

/** The real path of `path`, following every symlink of the part that exists. */
function realLoose(path: string): string {
  try {
    return realpathSync.native(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const parent = dirname(path);
    if ((code === 'ENOENT' || code === 'ENOTDIR') && parent !== path) return join(realLoose(parent), basename(path));
    throw error;
  }
}

interface Snapshot {
  /** The allowed roots, each as configured and as its real path. */
  roots: string[];
  realRoots: string[];
  /** The config file's directory, as configured and real (the file may be a symlink). */
  configDirs: string[];
  /** The config file itself, to refuse hard links to it. */
  configFile?: Stats;
}

/** Read at every call: a directory or a config file created after start-up counts. */
function snapshot(policy: FilePolicy): Snapshot {
  const realRoots: string[] = [];
  for (const root of policy.roots) {
    try {
      if (statSync(root).isDirectory()) realRoots.push(realpathSync.native(root));
    } catch {
      // A missing allowed directory allows nothing until it exists.
    }
  }
  const configDirs = [dirname(policy.configPath)];
  for (const real of [() => dirname(realLoose(policy.configPath)), () => realLoose(dirname(policy.configPath))]) {
    try {
      configDirs.push(real());
    } catch {
      // Unreadable: the configured directory is still refused.
    }
  }
  let configFile: Stats | undefined;
  try {
    configFile = statSync(policy.configPath);
  } catch {
    // No config file (yet): its directory is still refused.
  }
  return { roots: policy.roots, realRoots, configDirs, ...(configFile && { configFile }) };
}

class Checker {
  constructor(
    readonly policy: FilePolicy,
    readonly field: string,
  ) {}

  /** The path as the call gave it, made absolute without touching the disk. */
  absolute(path: string): string {
    if (HIDDEN.test(path)) {
      throw refuse(
        `${this.field} ${JSON.stringify(path)} contains control or invisible characters, which make a path read differently from what it opens; use a plain path`,
        this.field,
      );
    }
    return resolve(this.policy.cwd, path);
  }

  /** Refuses `path` (absolute, real or not) unless it is inside an allowed root and outside the config directory. */
  check(path: string, snap: Snapshot, requested: string, roots: readonly string[]): void {
    if (snap.configDirs.some((dir) => isWithin(path, dir))) {
      throw refuse(
        `${this.field} ${requested} is the Switchboard config file or in its directory (${dirname(this.policy.configPath)}), ` +
          'which holds API keys: this MCP server never reads or writes there, whatever is allowed',
        this.field,
      );
    }
    if (!roots.some((root) => isWithin(path, root))) {
      const via = path === requested ? '' : ` (it resolves to ${path})`;
      const allowed =
        this.policy.roots.length > 0
          ? `the allowed directories (${this.policy.roots.join(', ')})`
          : 'any allowed directory';
      throw refuse(`${this.field} ${requested} is outside ${allowed}${via}; ${HOW_TO_ALLOW}`, this.field);
    }
  }

  /** Same inode as the config file: a hard link to it, wherever it sits. */
  notConfig(stats: Stats, snap: Snapshot, requested: string): void {
    const config = snap.configFile;
    if (config && config.dev === stats.dev && config.ino === stats.ino) {
      throw refuse(
        `${this.field} ${requested} is the Switchboard config file (a link to it), which holds API keys`,
        this.field,
      );
    }
  }

  /**
   * The real path of an open file: on Linux what the kernel says the descriptor names; elsewhere
   * the real path of `path` now, which must still be the inode that was opened.
   */
  openedPath(fd: number, stats: Stats, path: string, requested: string): string {
    if (process.platform === 'linux') {
      try {
        const named = readlinkSync(`/proc/self/fd/${fd}`);
        if (isAbsolute(named)) return named;
      } catch {
        // No /proc: the portable check below.
      }
    }
    let now: string;
    try {
      now = realpathSync.native(path);
      const current = lstatSync(now);
      if (current.dev === stats.dev && current.ino === stats.ino) return now;
    } catch {
      // Gone or replaced: refused below.
    }
    throw refuse(`${this.field} ${requested} changed while it was being opened; try again`, this.field);
  }
}

const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const NONBLOCK = constants.O_NONBLOCK ?? 0;

/** Test seams: run between a check and the next file operation, to swap files as an attacker would. */
export interface RaceHooks {
  /** Before an upload is opened or a download's temp file is created. */
  beforeOpen?(path: string): void;
  /** All bytes written, before the last check and the rename. */
  beforeRename?(temp: string): void;
}

/**
 * A FileAccess confined to the policy, for one tool call. Uploads keep their descriptor open
 * until `release()`: on Linux the upload is read through `/proc/self/fd/N`, which names the open
 * file itself, so the bytes sent are those of the file that was checked, not of whatever the
 * path names later.
 */
export function confinedFiles(policy: FilePolicy, hooks: RaceHooks = {}): FileAccess & { release(): void } {
  const openFds: number[] = [];

  async function openUpload(path: string): Promise<LocalUpload> {
    const check = new Checker(policy, 'file_path');
    const absolute = check.absolute(path);
    const snap = snapshot(policy);
    // Lexically first, so that a path plainly outside is refused without touching the disk.
    check.check(absolute, snap, absolute, [...snap.roots, ...snap.realRoots]);
    let real: string;
    try {
      real = realLoose(absolute);
    } catch (error) {
      throw fileError(`cannot read file_path ${describeFsError(error, absolute)}`);
    }
    check.check(real, snap, absolute, snap.realRoots);
    hooks.beforeOpen?.(real);
    let fd: number;
    try {
      // O_NOFOLLOW: a symlink put in place of the checked file since the check is refused, not
      // followed; O_NONBLOCK: a FIFO cannot hang the server.
      fd = openSync(real, constants.O_RDONLY | NOFOLLOW | NONBLOCK);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ELOOP') {
        throw refuse(`file_path ${absolute} was replaced by a symbolic link while it was being opened`, 'file_path');
      }
      throw fileError(`cannot read file_path ${describeFsError(error, absolute)}`);
    }
    try {
      const stats = fstatSync(fd);
      if (!stats.isFile()) throw fileError(`cannot read file_path ${absolute}: not a regular file`);
      check.check(check.openedPath(fd, stats, real, absolute), snap, absolute, snap.realRoots);
      check.notConfig(stats, snap, absolute);
      const type = mediaTypeFor(absolute);
      const blob =
        process.platform === 'linux'
          ? // Streamed at send time from the open descriptor (openAsBlob reopens its path per read).
            await openAsBlob(`/proc/self/fd/${fd}`, { type })
          : // No descriptor path to stream from portably: read the checked descriptor now.
            new Blob([readFileSync(fd)], { type });
      openFds.push(fd);
      return { blob, filename: basename(absolute) };
    } catch (error) {
      closeSync(fd);
      if (error instanceof LocalError) throw error;
      throw fileError(`cannot read file_path ${describeFsError(error, absolute)}`);
    }
  }

  /** The destination's directory must exist; the returned path is its real path plus the name. */
  function checkDestination(outPath: string, overwrite: boolean): string {
    const check = new Checker(policy, 'out_path');
    const absolute = check.absolute(outPath);
    const snap = snapshot(policy);
    check.check(absolute, snap, absolute, [...snap.roots, ...snap.realRoots]);
    let parent: string;
    try {
      parent = realLoose(dirname(absolute));
    } catch (error) {
      throw fileError(`cannot write out_path ${describeFsError(error, dirname(absolute))}`);
    }
    const target = join(parent, basename(absolute));
    check.check(target, snap, absolute, snap.realRoots);
    let existing: Stats | undefined;
    try {
      existing = lstatSync(target);
    } catch {
      existing = undefined;
    }
    if (existing?.isSymbolicLink()) {
      throw refuse(`out_path ${absolute} is a symbolic link; give the path of a regular file or a new one`, 'out_path');
    }
    if (existing) check.notConfig(existing, snap, absolute);
    // Directory exists, not a directory itself, overwrite: the CLI's own rules and messages.
    return plainCheckDestination(target, overwrite, MCP_FILE_NAMES);
  }

  /** Where a new file actually landed (its parent may have been swapped after the check). */
  async function verifyCreated(handle: FileHandle, temp: string, target: string): Promise<void> {
    const check = new Checker(policy, 'out_path');
    const snap = snapshot(policy);
    const stats = await handle.stat();
    check.check(check.openedPath(handle.fd, stats, temp, target), snap, target, snap.realRoots);
  }

  return {
    openUpload,
    checkDestination,
    async createTemp(temp) {
      hooks.beforeOpen?.(temp);
      // O_EXCL already refuses a symlink at the temp name; O_NOFOLLOW says so on every platform.
      const handle = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW, 0o666);
      try {
        await verifyCreated(handle, temp, temp);
      } catch (error) {
        await handle.close();
        // Created outside the allowed tree through a swapped directory: take it back.
        unlinkSync(temp);
        throw error;
      }
      return handle;
    },
    async beforeRename(temp, handle, target, overwrite) {
      // Re-checked just before the rename: the directory is still the checked one, the temp file
      // is still ours, and the destination is still acceptable (no symlink, no clobber).
      hooks.beforeRename?.(temp);
      const parent = dirname(target);
      let sameParent = false;
      try {
        sameParent = realpathSync.native(parent) === parent;
      } catch {
        sameParent = false;
      }
      const stats = await handle.stat();
      const current = lstatSync(temp, { throwIfNoEntry: false });
      if (!sameParent || !current || current.dev !== stats.dev || current.ino !== stats.ino) {
        throw refuse(`out_path ${target}: its directory changed during the download; nothing was written`, 'out_path');
      }
      await verifyCreated(handle, temp, target);
      checkDestination(target, overwrite);
    },
    release() {
      for (const fd of openFds.splice(0)) {
        try {
          closeSync(fd);
        } catch {
          // Already closed.
        }
      }
    },
  };
}
