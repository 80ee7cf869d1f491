/**
 * An install outside the source tree: `npm pack` of the built tree, installed globally into a
 * temporary prefix (`npm install -g --prefix`, the package's own postinstall and workerd's
 * allowed by `--allow-scripts`, as docs/design/self-hosting.md tells operators), then
 * `switchboard serve` started from another folder and driven over HTTP: the first administrator,
 * a host, two agents, a send. The dependencies come from the npm cache where they are in it
 * (`--prefer-offline`). About a minute, most of it npm.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { adminLogin, api, createAgent, createHost, DEFAULT_ADMIN_PASSWORD, ROOT, tempDir } from './harness.js';

let child: ChildProcess | undefined;

afterAll(() => {
  child?.kill('SIGKILL');
});

it('installs the packed tarball globally and serves from another folder', { timeout: 180_000 }, async () => {
  const dir = tempDir('switchboard-install-');
  // The e2e suite runs on a built tree; `prepare` (a full build) is not run again here.
  execFileSync('npm', ['pack', '--ignore-scripts', '--pack-destination', dir], { cwd: ROOT, stdio: 'pipe' });
  const tarball = join(dir, readdirSync(dir).find((name) => name.endsWith('.tgz')) as string);
  const prefix = join(dir, 'prefix');
  execFileSync(
    'npm',
    [
      'install',
      '-g',
      '--prefix',
      prefix,
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      `--allow-scripts=${tarball},workerd`,
      tarball,
    ],
    { cwd: dir, stdio: 'pipe', timeout: 150_000 },
  );
  const installed = join(prefix, 'lib/node_modules/switchboard');
  // Lean: what runs, nothing of the source tree.
  const top = readdirSync(installed).sort();
  expect(
    top.filter(
      (name) =>
        !['LICENSE', 'README.md', 'CHANGELOG.md', 'dist', 'node_modules', 'package.json', 'patches'].includes(name),
    ),
  ).toEqual([]);

  const elsewhere = tempDir('switchboard-elsewhere-');
  const data = join(elsewhere, 'data');
  child = spawn(join(prefix, 'bin/switchboard'), ['serve', '--port', '0', '--data', data], {
    cwd: elsewhere,
    env: { ...process.env, SWITCHBOARD_ADMIN_PASSWORD: DEFAULT_ADMIN_PASSWORD, SWITCHBOARD_HOST: undefined },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr?.setEncoding('utf8').on('data', (text: string) => {
    err += text;
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not ready in 60 s\n${out}\n${err}`)), 60_000);
    child?.stdout?.setEncoding('utf8').on('data', (text: string) => {
      out += text;
      const ready = /Switchboard listening on (http:\/\/[^\s]+)/.exec(out);
      if (ready) {
        clearTimeout(timer);
        resolve(ready[1] as string);
      }
    });
    child?.once('exit', (code) => reject(new Error(`exited with ${code}\n${out}\n${err}`)));
  });
  const server = { url, adminPassword: DEFAULT_ADMIN_PASSWORD };
  const cookie = await adminLogin(server);
  const host = await createHost(server, cookie, ['127.0.0.1']);
  const a = await createAgent(server, cookie, host.host_id);
  const b = await createAgent(server, cookie, host.host_id);
  const sent = await api(server, 'POST', '/messages/direct', {
    key: a.key,
    body: { to_agent_ids: [b.agent.agent_id], body: 'installed from the tarball' },
  });
  expect(sent.status).toBe(200);
  const claim = await api(server, 'POST', '/inbox/claim', { key: b.key, body: { limit: 1 } });
  expect(claim.body.claims[0].message.body).toBe('installed from the tarball');
  // The console is served from the installed package's files.
  expect((await api(server, 'GET', '/', { absolutePath: true })).text).toMatch(/<html/i);
  child.kill('SIGTERM');
});
