// Shared by the benchmark scripts: the real self-hosted server on a free port with a temporary
// data dir (as `npm start` runs it), a small JSON client, and section-wise docs/benchmarks.md output.
import { execFileSync, spawn } from 'node:child_process';
import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import './offline-env.mjs';

export const ADMIN_PASSWORD = 'bench-admin-password-0123';

/**
 * Starts `switchboard serve` (build first); resolves once it prints its ready line.
 * `env` adds variables (e.g. SWITCHBOARD_BENCH_HELLO=1); `dataDir` reuses a directory (restarts);
 * `command` replaces the launcher command (e.g. ['npm', 'start', '--']) to time what users run.
 */
export async function startServer(prefix = 'switchboard-bench-', { env = {}, dataDir, command } = {}) {
  const dir = dataDir ?? mkdtempSync(join(os.tmpdir(), prefix));
  const argv = command ?? [process.execPath, 'dist/node/switchboard.mjs', 'serve'];
  const started = performance.now();
  const child = spawn(argv[0], [...argv.slice(1), '--port', '0', '--data', dir], {
    env: { ...process.env, SWITCHBOARD_ADMIN_PASSWORD: ADMIN_PASSWORD, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const base = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const match = /Switchboard listening on (\S+)/.exec(out);
      if (match) resolve(match[1].replace('0.0.0.0', '127.0.0.1'));
    });
    child.on('exit', (code) => reject(new Error(`server exited with ${code}: ${stderr.slice(-2000)}`)));
  });
  const readyMs = performance.now() - started;
  // The launcher's own pid (not npm's when `command` is npm): it writes it to run/launcher.json.
  const launcherPid = JSON.parse(readFileSync(join(dir, 'run', 'launcher.json'), 'utf8')).pid;
  // CPU the server's processes used to get ready: unlike wall time, barely moved by other load.
  const readyCpuMs = processTree(launcherPid).reduce((sum, p) => sum + cpuMs(p.pid), 0);
  const exited = new Promise((resolve) => child.on('exit', resolve));
  return {
    base,
    api: `${base}/api/v1`,
    dataDir: dir,
    readyMs,
    readyCpuMs,
    pid: launcherPid,
    stderr: () => stderr,
    /** SIGKILL of the launcher alone, like a crash (its orphan guard ends workerd). */
    async crash() {
      process.kill(launcherPid, 'SIGKILL');
      await exited;
      // workerd is ended by the guard shortly after; wait until no child of the launcher is left.
      for (let i = 0; i < 200 && processTree(launcherPid).length > 0; i++) await sleep(25);
    },
    async stop({ keepData = false } = {}) {
      if (child.exitCode === null && child.signalCode === null) {
        process.kill(launcherPid, 'SIGTERM');
        await exited;
      }
      if (!keepData) rmSync(dir, { recursive: true, force: true });
    },
  };
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** `/proc/<pid>/stat` fields after the command name (which may contain spaces). */
function statFields(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const close = stat.lastIndexOf(')');
    return { comm: stat.slice(stat.indexOf('(') + 1, close), rest: stat.slice(close + 2).split(' ') };
  } catch {
    return null;
  }
}

/** `pid` and all its descendants, with their command names (Linux /proc; [] elsewhere). */
export function processTree(pid) {
  const parents = new Map();
  let entries = [];
  try {
    entries = readdirSync('/proc').filter((e) => /^\d+$/.test(e));
  } catch {
    return [];
  }
  for (const entry of entries) {
    const fields = statFields(entry);
    if (fields) parents.set(Number(entry), { ppid: Number(fields.rest[1]), comm: fields.comm });
  }
  const tree = [];
  const visit = (p) => {
    for (const [child, info] of parents) {
      if (info.ppid === p) {
        tree.push({ pid: child, comm: info.comm });
        visit(child);
      }
    }
  };
  if (parents.has(pid)) tree.push({ pid, comm: parents.get(pid).comm });
  visit(pid);
  return tree;
}

/** CPU time (user + system) a process has used so far, in milliseconds. */
export function cpuMs(pid) {
  const fields = statFields(pid);
  if (!fields) return Number.NaN;
  // utime and stime are fields 14 and 15 of stat, i.e. 11 and 12 after "state ppid …".
  const ticks = Number(fields.rest[11]) + Number(fields.rest[12]);
  return (ticks * 1000) / CLOCK_TICKS;
}

/** Resident memory of a process, in bytes (VmRSS). */
export function rssBytes(pid) {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** USER_HZ: the unit of utime/stime (100 on every mainstream Linux). */
const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** The machine's load averages now (the machine may be shared: every result records them). */
export function loadAverage() {
  return os.loadavg().map((v) => Number(v.toFixed(2)));
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

/** Removes the section that starts with `heading` (a section this script no longer writes). */
export function removeSection(file, heading) {
  if (!existsSync(file)) return;
  const previous = readFileSync(file, 'utf8');
  const start = previous.indexOf(heading);
  if (start < 0) return;
  const after = previous.indexOf('\n## ', start + heading.length);
  writeFileSync(file, previous.slice(0, start) + (after < 0 ? '' : previous.slice(after + 1)));
}

/**
 * Median latency of a 4 KB write followed by fsync in `dir` (ms). workerd commits every Durable
 * Object transaction with an fsync on its one JavaScript thread, so on a busy disk this, not the
 * CPU, can bound the server: each result records it next to the load average.
 */
export function fsyncLatencyMs(dir, samples = 40) {
  const file = join(dir, `.fsync-probe-${process.pid}`);
  const fd = openSync(file, 'w');
  const block = Buffer.alloc(4096, 1);
  const times = [];
  try {
    for (let i = 0; i < samples; i++) {
      const started = performance.now();
      writeSync(fd, block, 0, block.length, 0);
      fsyncSync(fd);
      times.push(performance.now() - started);
    }
  } finally {
    closeSync(fd);
    rmSync(file, { force: true });
  }
  times.sort((a, b) => a - b);
  return Number(times[Math.floor(times.length / 2)].toFixed(2));
}
