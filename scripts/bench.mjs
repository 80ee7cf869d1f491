// Load benchmark for ordinary API operations (REQ-49: 100 requests/s is the acceptance target).
// Starts the real server (the launcher, as `npm start` does) on a free port with a temporary data
// dir, registers agents on host 127.0.0.1, then drives each operation with concurrent
// keep-alive clients for a fixed time and reports throughput and latency percentiles.
// Results are written to docs/benchmarks.md. Usage: npm run bench [-- --seconds 10 --concurrency 16]
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '8' },
    concurrency: { type: 'string', default: '16' },
    agents: { type: 'string', default: '20' },
    out: { type: 'string', default: 'docs/benchmarks.md' },
  },
});
const SECONDS = Number(values.seconds);
const CONCURRENCY = Number(values.concurrency);
const AGENTS = Number(values.agents);
const PASSWORD = 'bench-admin-password-0123';

const dataDir = mkdtempSync(join(os.tmpdir(), 'switchboard-bench-'));
const child = spawn(process.execPath, ['dist/node/switchboard.mjs', 'serve', '--port', '0', '--data', dataDir], {
  env: { ...process.env, SWITCHBOARD_ADMIN_PASSWORD: PASSWORD },
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
const api = `${base}/api/v1`;

async function call(method, path, { key, cookie, body } = {}) {
  const headers = {};
  if (key) headers.authorization = `Bearer ${key}`;
  if (cookie) headers.cookie = cookie;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(api + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
}

function percentile(sorted, p) {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : 0;
}

/** Runs `op(workerIndex, iteration)` from CONCURRENCY loops for SECONDS; returns the stats. */
async function load(name, op) {
  const latencies = [];
  let errors = 0;
  const deadline = performance.now() + SECONDS * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, worker) => {
      for (let i = 0; performance.now() < deadline; i++) {
        const t = performance.now();
        const ok = await op(worker, i).catch(() => false);
        latencies.push(performance.now() - t);
        if (!ok) errors++;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const row = {
    name,
    requests: latencies.length,
    rps: latencies.length / elapsed,
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
    p99: percentile(latencies, 99),
    errors,
  };
  console.log(
    `${name.padEnd(28)} ${row.rps.toFixed(0).padStart(6)} req/s  p50 ${row.p50.toFixed(1)} ms  p95 ${row.p95.toFixed(1)} ms  p99 ${row.p99.toFixed(1)} ms  errors ${errors}`,
  );
  return row;
}

const results = [];
try {
  const login = await call('POST', '/admin/login', { body: { username: 'admin', password: PASSWORD } });
  const cookie = login.headers.get('set-cookie').split(';')[0];
  const host = (await call('POST', '/admin/hosts', { cookie, body: { name: 'bench', addresses: ['127.0.0.1'] } })).body
    .host;
  const agents = [];
  for (let i = 0; i < AGENTS; i++) {
    const created = await call('POST', '/admin/agents', {
      cookie,
      body: { name: `bench-${i}`, host_id: host.host_id },
    });
    agents.push({ id: created.body.agent.agent_id, key: created.body.api_key });
  }
  const agentFor = (worker) => agents[worker % agents.length];
  const peerOf = (worker, i) => agents[(worker + 1 + (i % (agents.length - 1))) % agents.length];

  results.push(await load('GET /me', async (w) => (await call('GET', '/me', { key: agentFor(w).key })).status === 200));
  results.push(
    await load(
      'GET /directory',
      async (w) => (await call('GET', '/directory', { key: agentFor(w).key })).status === 200,
    ),
  );
  results.push(
    await load('POST /messages/direct', async (w, i) => {
      const res = await call('POST', '/messages/direct', {
        key: agentFor(w).key,
        body: { to_agent_ids: [peerOf(w, i).id], body: `bench message ${w}/${i} ${Date.now()}` },
      });
      return res.status === 200 && res.body.results[0].status === 'sent';
    }),
  );
  results.push(
    await load('GET /inbox', async (w) => (await call('GET', '/inbox', { key: agentFor(w).key })).status === 200),
  );
  results.push(
    await load('POST /inbox/claim + ack', async (w) => {
      const agent = agentFor(w);
      const claimed = await call('POST', '/inbox/claim', { key: agent.key, body: { limit: 1 } });
      if (claimed.status !== 200) return false;
      const claims = claimed.body.claims;
      if (claims.length === 0) return true;
      const acked = await call('POST', '/inbox/ack', {
        key: agent.key,
        body: { acks: claims.map((c) => ({ message_id: c.message.message_id, claim_token: c.claim_token })) },
      });
      return acked.status === 200;
    }),
  );
} finally {
  child.kill('SIGTERM');
  await new Promise((resolve) => child.on('exit', resolve));
  rmSync(dataDir, { recursive: true, force: true });
}

const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
const table = results
  .map(
    (r) =>
      `| ${r.name} | ${r.requests} | ${r.rps.toFixed(0)} | ${r.p50.toFixed(1)} | ${r.p95.toFixed(1)} | ${r.p99.toFixed(1)} | ${r.errors} |`,
  )
  .join('\n');
const SECTION = '## Ordinary API operations (REQ-49)';
const section = `${SECTION}

Generated by \`npm run bench\` (scripts/bench.mjs) on ${new Date().toISOString().slice(0, 10)}: the real
self-hosted server (Node front + Miniflare, persistence on), ${AGENTS} agents on one host,
${CONCURRENCY} concurrent keep-alive clients in one Node process on the same machine, ${SECONDS} s per
operation. Machine: ${os.cpus().length} × ${cpu}, Node ${process.version}. The client shares the CPU with
the server, so these are lower bounds. REQ-49's acceptance target is 100 requests/s for ordinary
operations. "claim + ack" counts one claim and, when something was claimed, one ACK per iteration.

| Operation | Requests | Requests/s | p50 ms | p95 ms | p99 ms | Errors |
|---|---|---|---|---|---|---|
${table}
`;
// Replace this section in place (from its heading to the next "## " heading), keep the rest.
const previous = existsSync(values.out) ? readFileSync(values.out, 'utf8') : '# Benchmarks\n';
const start = previous.indexOf(SECTION);
let updated;
if (start < 0) updated = `${previous.trimEnd()}\n\n${section}`;
else {
  const after = previous.indexOf('\n## ', start + SECTION.length);
  updated = previous.slice(0, start) + section + (after < 0 ? '' : previous.slice(after + 1));
}
writeFileSync(values.out, updated);
console.log(`wrote ${values.out}`);
