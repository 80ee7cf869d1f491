// Shared by the benchmark scripts: the real self-hosted server on a free port with a temporary
// data dir (as `npm start` runs it), a small JSON client, and section-wise docs/benchmarks.md output.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import './offline-env.mjs';

export const ADMIN_PASSWORD = 'bench-admin-password-0123';

/** Starts `switchboard serve` (build first); resolves once it prints its ready line. */
export async function startServer(prefix = 'switchboard-bench-') {
  const dataDir = mkdtempSync(join(os.tmpdir(), prefix));
  const child = spawn(process.execPath, ['dist/node/switchboard.mjs', 'serve', '--port', '0', '--data', dataDir], {
    env: { ...process.env, SWITCHBOARD_ADMIN_PASSWORD: ADMIN_PASSWORD },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const base = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const match = /Switchboard listening on (\S+)/.exec(out);
      if (match) resolve(match[1].replace('0.0.0.0', '127.0.0.1'));
    });
    child.on('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
  return {
    api: `${base}/api/v1`,
    async stop() {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.on('exit', resolve));
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A JSON client for one server; with `strict`, any non-2xx answer throws. */
export function client(api, { strict = false } = {}) {
  return async function call(method, path, { key, cookie, body } = {}) {
    const headers = {};
    if (key) headers.authorization = `Bearer ${key}`;
    if (cookie) headers.cookie = cookie;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(api + path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (strict && !res.ok) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 500)}`);
    return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
  };
}

/** Signs in as the bootstrap administrator and returns the session cookie. */
export async function adminCookie(call) {
  const login = await call('POST', '/admin/login', { body: { username: 'admin', password: ADMIN_PASSWORD } });
  return login.headers.get('set-cookie').split(';')[0];
}

export function machine() {
  return `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'unknown CPU'}, Node ${process.version}`;
}

/** Replaces the section that starts with `heading` (up to the next "## ") and keeps the others. */
export function writeSection(file, heading, section) {
  const previous = existsSync(file) ? readFileSync(file, 'utf8') : '# Benchmarks\n';
  const start = previous.indexOf(heading);
  let updated;
  if (start < 0) updated = `${previous.trimEnd()}\n\n${section}`;
  else {
    const after = previous.indexOf('\n## ', start + heading.length);
    updated = previous.slice(0, start) + section + (after < 0 ? '' : `\n${previous.slice(after + 1)}`);
  }
  writeFileSync(file, updated);
}
