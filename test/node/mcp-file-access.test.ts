/**
 * The MCP server's file confinement on a real file system: what `file_path`/`out_path` may name,
 * and the races an attacker on the same machine could run between the check and the open. The
 * end-to-end proofs over the real MCP server are in test/e2e/mcp-files.test.ts; these drive the
 * swaps that need a seam between the check and the open.
 */
import { createHash } from 'node:crypto';
import {
  linkSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalError } from '../../client/errors.js';
import { saveDownload } from '../../client/files.js';
import { ALLOWED_DIRS_ENV, confinedFiles, describePolicy, filePolicy, type RaceHooks } from '../../mcp/file-access.js';

let base: string;
let work: string;
let outside: string;
let configDir: string;
let configFile: string;

beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'switchboard-mcp-fa-'));
  work = join(base, 'work');
  outside = join(base, 'outside');
  configDir = join(base, 'conf');
  for (const dir of [work, outside, configDir]) mkdirSync(dir);
  configFile = join(configDir, 'config.json');
  writeFileSync(configFile, '{"profiles":{"p":{"url":"http://x","api_key":"sbk_agt_secret.key"}}}');
  writeFileSync(join(work, 'report.txt'), 'report');
  writeFileSync(join(outside, 'secret.txt'), 'secret');
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

function access(options: { allowDirs?: string[]; env?: Record<string, string>; cwd?: string } = {}, hooks?: RaceHooks) {
  const policy = filePolicy({
    env: { SWITCHBOARD_CONFIG: configFile, ...options.env },
    cwd: options.cwd ?? work,
    ...(options.allowDirs && { allowDirs: options.allowDirs }),
  });
  return confinedFiles(policy, hooks);
}

async function refusal(promise: Promise<unknown> | (() => unknown)): Promise<LocalError> {
  try {
    await (typeof promise === 'function' ? promise() : promise);
  } catch (error) {
    expect(error).toBeInstanceOf(LocalError);
    return error as LocalError;
  }
  throw new Error('expected a refusal');
}

async function uploadText(files: ReturnType<typeof access>, path: string): Promise<string> {
  try {
    return await (await files.openUpload(path)).blob.text();
  } finally {
    files.release();
  }
}

const download = (body: string) => new Response(body, { headers: { 'content-type': 'text/plain' } });

describe('file_path (uploads)', () => {
  it('reads a file under the working directory, by relative or absolute path, and an in-tree symlink', async () => {
    const files = access();
    expect(await uploadText(files, 'report.txt')).toBe('report');
    expect(await uploadText(files, join(work, 'report.txt'))).toBe('report');
    symlinkSync('report.txt', join(work, 'latest.txt'));
    expect(await uploadText(files, 'latest.txt')).toBe('report');
    const upload = await files.openUpload('./latest.txt');
    expect(upload.filename).toBe('latest.txt');
    files.release();
  });

  it.each([
    ['the config file', () => configFile],
    ['another file in the config directory', () => join(configDir, 'other.json')],
    ['a file outside the allowed tree', () => join(outside, 'secret.txt')],
    ['a .. escape', () => '../outside/secret.txt'],
    ['a .. escape through an allowed name', () => `${work}/../outside/secret.txt`],
    ['the config through /proc/self/root', () => `/proc/self/root${configFile}`],
  ])('refuses %s with path_not_allowed', async (_name, path) => {
    writeFileSync(join(configDir, 'other.json'), '{}');
    const error = await refusal(access().openUpload(path()));
    expect(error.code).toBe('path_not_allowed');
    expect(error.field).toBe('file_path');
    expect(error.message).toMatch(/--allow-dir|API keys/);
  });

  it('says how to allow a directory', async () => {
    const error = await refusal(access().openUpload(join(outside, 'secret.txt')));
    expect(error.message).toContain('--allow-dir');
    expect(error.message).toContain(ALLOWED_DIRS_ENV);
  });

  it('refuses symlinks and symlinked parents that leave the tree, and links to the config file', async () => {
    symlinkSync(join(outside, 'secret.txt'), join(work, 'innocent.txt'));
    symlinkSync(outside, join(work, 'docs'));
    symlinkSync(configFile, join(work, 'settings.json'));
    linkSync(configFile, join(work, 'hard.json'));
    for (const path of ['innocent.txt', 'docs/secret.txt', 'settings.json', 'hard.json']) {
      const error = await refusal(access().openUpload(path));
      expect(error.code, path).toBe('path_not_allowed');
    }
  });

  it('refuses invisible and control characters in the path', async () => {
    for (const path of ['report\u202Etxt.exe', 'rep\u200Bort.txt', 'report.txt\n', 'a\u0000b']) {
      const error = await refusal(access().openUpload(path));
      expect(error.code).toBe('path_not_allowed');
    }
  });

  it('a cwd of / allows nothing until a directory is allowed', async () => {
    const policy = filePolicy({ env: { SWITCHBOARD_CONFIG: configFile }, cwd: '/' });
    expect(policy.roots).toEqual([]);
    expect(describePolicy(policy)).toMatch(/refused/);
    const error = await refusal(confinedFiles(policy).openUpload(join(work, 'report.txt')));
    expect(error.code).toBe('path_not_allowed');
  });

  it('the setting replaces the default: the flag over the variable over the working directory', async () => {
    const secret = join(outside, 'secret.txt');
    expect(await uploadText(access({ env: { [ALLOWED_DIRS_ENV]: outside } }), secret)).toBe('secret');
    expect(await uploadText(access({ allowDirs: [outside] }), secret)).toBe('secret');
    expect((await refusal(access({ allowDirs: [outside] }).openUpload('report.txt'))).code).toBe('path_not_allowed');
    expect(
      (await refusal(access({ allowDirs: [work], env: { [ALLOWED_DIRS_ENV]: outside } }).openUpload(secret))).code,
    ).toBe('path_not_allowed');
    // Allowing the config directory (or a parent of it) still never reaches the config.
    for (const allowDirs of [[configDir], [base]]) {
      expect((await refusal(access({ allowDirs }).openUpload(configFile))).code).toBe('path_not_allowed');
    }
    expect(await uploadText(access({ allowDirs: [base] }), secret)).toBe('secret');
  });

  it('a file swapped for a symlink between the check and the open is refused (O_NOFOLLOW)', async () => {
    const files = access(
      {},
      {
        beforeOpen(path) {
          unlinkSync(path);
          symlinkSync(configFile, path);
        },
      },
    );
    const error = await refusal(files.openUpload('report.txt'));
    expect(error.code).toBe('path_not_allowed');
    expect(error.message).toMatch(/symbolic link/);
  });

  it('a parent swapped for a symlink between the check and the open is refused (real path of the opened file)', async () => {
    mkdirSync(join(work, 'sub'));
    writeFileSync(join(work, 'sub', 'notes.txt'), 'inside');
    writeFileSync(join(outside, 'notes.txt'), 'outside');
    const files = access(
      {},
      {
        beforeOpen() {
          renameSync(join(work, 'sub'), join(base, 'moved'));
          symlinkSync(outside, join(work, 'sub'));
        },
      },
    );
    const error = await refusal(files.openUpload('sub/notes.txt'));
    expect(error.code).toBe('path_not_allowed');
    expect(error.message).toContain(outside);
  });

  it('sends the bytes of the file that was checked even if the path is swapped afterwards', async () => {
    if (process.platform !== 'linux') return;
    const files = access();
    const upload = await files.openUpload('report.txt');
    renameSync(join(work, 'report.txt'), join(work, 'old.txt'));
    symlinkSync(join(outside, 'secret.txt'), join(work, 'report.txt'));
    expect(await upload.blob.text()).toBe('report');
    files.release();
  });
});

describe('out_path (downloads)', () => {
  it('writes under the working directory and returns the real path', async () => {
    const files = access();
    const result = await saveDownload(download('bytes'), 'copy.txt', false, files);
    expect(result.path).toBe(join(work, 'copy.txt'));
    expect(readFileSync(join(work, 'copy.txt'), 'utf8')).toBe('bytes');
    expect(result.sha256).toBe(createHash('sha256').update('bytes').digest('hex'));
  });

  it.each([
    ['over the config file', () => configFile, true],
    ['a new file in the config directory', () => join(configDir, 'new.json'), false],
    ['outside the allowed tree', () => join(outside, 'x.txt'), false],
    ['a .. escape', () => '../outside/x.txt', false],
    ['through a symlinked parent', () => 'docs/x.txt', false],
    ['over a symlink to the config', () => 'settings.json', true],
    ['over a symlink inside the tree', () => 'latest.txt', true],
    ['over a hard link to the config', () => 'hard.json', true],
  ])('refuses %s; nothing is written', async (_name, path, overwrite) => {
    symlinkSync(outside, join(work, 'docs'));
    symlinkSync(configFile, join(work, 'settings.json'));
    symlinkSync('report.txt', join(work, 'latest.txt'));
    linkSync(configFile, join(work, 'hard.json'));
    const before = readFileSync(configFile, 'utf8');
    const listing = () => [work, outside, configDir].map((dir) => readdirSync(dir).sort());
    const was = listing();
    const error = await refusal(saveDownload(download('pwned'), path(), overwrite, access()));
    expect(error.code).toBe('path_not_allowed');
    expect(error.field).toBe('out_path');
    expect(readFileSync(configFile, 'utf8')).toBe(before);
    expect(listing()).toEqual(was);
  });

  it('a directory swapped for a symlink after the check is refused; nothing is left outside', async () => {
    mkdirSync(join(work, 'sub'));
    const swap = () => {
      renameSync(join(work, 'sub'), join(base, 'moved'));
      symlinkSync(outside, join(work, 'sub'));
    };
    for (const hooks of [{ beforeOpen: swap }, { beforeRename: swap }] as RaceHooks[]) {
      const error = await refusal(saveDownload(download('pwned'), 'sub/x.txt', false, access({}, hooks)));
      expect(error.code).toBe('path_not_allowed');
      expect(readdirSync(outside)).toEqual(['secret.txt']);
      expect(
        readdirSync(join(base, 'moved')).filter((name) => name.startsWith('x.txt') && !name.endsWith('.part')),
      ).toEqual([]);
      rmSync(join(work, 'sub'));
      rmSync(join(base, 'moved'), { recursive: true });
      mkdirSync(join(work, 'sub'));
    }
  });
});
