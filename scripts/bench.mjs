// `npm run bench`: load benchmarks against the real self-hosted server (the launcher as `npm start`
// runs it: Node front + Miniflare/workerd, persistence on), one client process on the same machine.
//
//   1. start to ready with `npm start` on a built tree, and a restart after SIGKILL;
//   2. the REQ-49 run: an open-loop mixed workload at 100 req/s for 60 s;
//   3. an open-loop ramp (200 … 3,200 req/s, 10 s a step) until two steps fail;
//   4. closed-loop ceilings read with workerd's and the launcher's CPU from /proc: a hello worker in
//      the same Miniflare behind the same front (SWITCHBOARD_BENCH_HELLO), the worker's cheapest
//      route (an unknown API path: its fixed middleware, no Durable Object call), and GET /me;
//      then GET /me and a send with the metrics middleware on and off (a request header that the
//      launcher honours only under SWITCHBOARD_BENCH_HELLO);
//      then remote MCP against HTTP: `whoami` over /mcp against GET /me, and a send over /mcp
//      against POST /messages/direct, workerd CPU per request of each;
//   5. the resident memory rise of the server's process tree during one maximal (50 MB) upload,
//      per process, and again for a second one (scripts/bench-upload.mjs);
//   6. the scale phases of issue 12 on a server of their own (scripts/bench-scale.mjs);
//   7. start-up of `switchboard mcp`, `--version` and a cold `inbox`, each beside a bare Node
//      process doing the same work (scripts/bench-startup.mjs), on the idle server before the load;
//   8. idle memory, first, on a server of its own started as `npm start` runs it: RSS and PSS of the
//      launcher, workerd and the orphan guard after set-up and after idling, then with 2k and 10k
//      stored messages and 20 attachments (scripts/bench-memory.mjs).
//
// Open loop: request i is scheduled at t0 + i/rate whatever happened to earlier ones, and its
// latency counts from that scheduled time, so a server (or client) that falls behind shows up as
// latency instead of silently lowering the offered rate (coordinated omission).
//
// Writes docs/benchmarks.md (its own section; other sections are kept), docs/benchmarks.json and
// docs/benchmarks-latency.svg. `--quick` is a seconds-long smoke at low rates that fails (exit 1)
// on any error or incomplete phase and never on speed; it writes nothing under docs/.
//
// Usage: npm run bench [-- --quick] [-- --json FILE]
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { latencyChart } from './bench-chart.mjs';
import { IMPORT_TARGET_PER_SECOND, importRun } from './bench-import.mjs';
import {
  ADMIN_PASSWORD,
  cpuMs,
  fsyncLatencyMs,
  loadAverage,
  machine,
  processTree,
  removeSection,
  sleep,
  startServer,
  writeSection,
} from './bench-kit.mjs';
import { perProcess as memoryPerProcess, memoryRun } from './bench-memory.mjs';
import { scaleReport, scaleRun } from './bench-scale.mjs';
import { startupRun, startupTable } from './bench-startup.mjs';
import { uploadMemory } from './bench-upload.mjs';
import { uploadFloor } from './bench-upload-floor.mjs';

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    out: { type: 'string', default: 'docs/benchmarks.md' },
    json: { type: 'string' },
    svg: { type: 'string', default: 'docs/benchmarks-latency.svg' },
    seed: { type: 'string', default: '12' },
    // Overrides, for investigating one phase: the agents and the REQ-49 run's rate and length.
    agents: { type: 'string' },
    rate: { type: 'string' },
    seconds: { type: 'string' },
    'skip-start': { type: 'boolean', default: false },
    // `--phase mcp`: only remote MCP against HTTP, printed, nothing written; `--phase ceilings`: only
    // the closed-loop ceilings, printed; `--phase memory`: only the idle memory, printed;
    // `--phase import`: only the agent import, its section of docs/benchmarks.md rewritten.
    phase: { type: 'string' },
  },
});
const QUICK = values.quick;
const SECTION_NAME = 'Load benchmark (`npm run bench`)';
const SECTION = `## ${SECTION_NAME}`;
const SCALE_SECTION = '## Issue 12 scale phases (`npm run bench`)';
const STARTUP_SECTION = '## Start-up of the agent commands (`npm run bench`)';
const IMPORT_SECTION = '## Agent import (`npm run bench`)';
const MEMORY_SECTION = '## Idle memory readings (`npm run bench`)';

/** Every size and rate of the run; --quick keeps each phase but makes it tiny. */
const PLAN = QUICK
  ? {
      agents: 4,
      groupSize: 4,
      req49: { rate: 20, seconds: 3 },
      ramp: [20, 40],
      rampSeconds: 2,
      closed: { clients: 4, seconds: 2, warmupSeconds: 0.5 },
      uploadBytes: 2_000_000,
      startTimes: false,
      memory: { idleSeconds: 2, messages: [50], attachments: 1 },
    }
  : {
      agents: 20,
      groupSize: 5,
      req49: { rate: 100, seconds: 60 },
      ramp: [200, 400, 800, 1200, 1600, 2400, 3200],
      rampSeconds: 10,
      closed: { clients: 32, seconds: 10, warmupSeconds: 2 },
      uploadBytes: 50_000_000,
      startTimes: true,
      memory: { idleSeconds: 30, messages: [2_000, 10_000], attachments: 20 },
    };
if (values.agents) PLAN.agents = Number(values.agents);
if (values.rate) PLAN.req49.rate = Number(values.rate);
if (values.seconds) PLAN.req49.seconds = Number(values.seconds);
if (values['skip-start']) PLAN.startTimes = false;
/** A ramp step holds when all three hold (issue 12). */
const HOLD = { p99Ms: 100, errorRate: 0.01, answeredShare: 0.9 };
/** A request unanswered after this long counts as an error. */
const TIMEOUT_MS = 10_000;
/** Requests in flight beyond this are not sent and count as errors (the client would only queue them). */
const MAX_OUTSTANDING = 4096;
const MIX = [
  ['directory', 0.2],
  ['inbox', 0.2],
  ['claim', 0.15],
  ['ack', 0.15],
  ['direct', 0.15],
  ['group', 0.05],
  ['history', 0.1],
];

/** mulberry32: a seeded generator, so two runs offer the same sequence of operations. */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = prng(Number(values.seed));
const pick = (list) => list[Math.floor(random() * list.length)];

function percentile(sorted, p) {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] : 0;
}
const round = (n, digits = 1) => (Number.isFinite(n) ? Number(n.toFixed(digits)) : n);

// ---------------------------------------------------------------------------------------------
// The server's processes: CPU and memory from /proc.

function serverProcesses(launcherPid) {
  const tree = processTree(launcherPid);
  return { launcher: launcherPid, workerd: tree.filter((p) => p.comm === 'workerd').map((p) => p.pid), tree };
}

function cpuSnapshot(procs) {
  return {
    at: performance.now(),
    launcher: cpuMs(procs.launcher),
    workerd: procs.workerd.reduce((sum, pid) => sum + cpuMs(pid), 0),
    client: (process.cpuUsage().user + process.cpuUsage().system) / 1000,
  };
}

/** CPU used between two snapshots, as % of one core. */
function cpuShare(before, after) {
  const wall = after.at - before.at;
  return {
    workerdPct: round((100 * (after.workerd - before.workerd)) / wall),
    launcherPct: round((100 * (after.launcher - before.launcher)) / wall),
    clientPct: round((100 * (after.client - before.client)) / wall),
  };
}

// ---------------------------------------------------------------------------------------------
// HTTP: one keep-alive pool (undici, which Miniflare already depends on) for the whole run.

let pool;

async function request(method, path, { key, cookie, body, raw, headers = {} } = {}) {
  const h = { ...headers };
  if (key) h.authorization = `Bearer ${key}`;
  if (cookie) h.cookie = cookie;
  let payload = raw;
  if (body !== undefined) {
    h['content-type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  const res = await pool.request({
    method,
    path,
    headers: h,
    body: payload,
    headersTimeout: TIMEOUT_MS,
    bodyTimeout: TIMEOUT_MS,
    signal: AbortSignal.timeout(raw ? 10 * TIMEOUT_MS : TIMEOUT_MS),
  });
  const text = await res.body.text();
  let json = null;
  if (text && String(res.headers['content-type'] ?? '').includes('json')) json = JSON.parse(text);
  return { status: res.statusCode, body: json, headers: res.headers };
}
const api = (method, path, options) => request(method, `/api/v1${path}`, options);

async function must(status, promise, what) {
  const res = await promise;
  if (res.status !== status) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body).slice(0, 400)}`);
  return res.body;
}

// ---------------------------------------------------------------------------------------------
// Set-up: agents on host 127.0.0.1, groups that cover every agent, one private channel each.

async function setUp() {
  const login = await api('POST', '/admin/login', { body: { username: 'admin', password: ADMIN_PASSWORD } });
  const cookie = String(login.headers['set-cookie']).split(';')[0];
  const { host } = await must(
    201,
    api('POST', '/admin/hosts', { cookie, body: { name: 'bench', addresses: ['127.0.0.1'] } }),
    'create host',
  );
  const agents = [];
  for (let i = 0; i < PLAN.agents; i++) {
    const created = await must(
      201,
      api('POST', '/admin/agents', { cookie, body: { name: `bench-${i}`, host_id: host.host_id } }),
      'create agent',
    );
    agents.push({ index: i, id: created.agent.agent_id, key: created.api_key, channels: new Set(), groups: [] });
  }
  // The closed-loop phases that send (metrics overhead, /mcp against HTTP, the upload) send
  // thousands of messages: from a pair of their own, so no channel of the mix starts at its
  // max_messages_per_channel, where each send of the mix would delete an unread (even a freshly
  // claimed) message and the mix's "a fresh claim's ACK is accepted" would not hold.
  const side = [];
  for (const name of ['bench-side-0', 'bench-side-1']) {
    const created = await must(
      201,
      api('POST', '/admin/agents', { cookie, body: { name, host_id: host.host_id } }),
      'create agent',
    );
    side.push({ id: created.agent.agent_id, key: created.api_key });
  }
  const groups = [];
  for (let start = 0; start + 1 < agents.length; start += PLAN.groupSize) {
    const members = agents.slice(start, start + PLAN.groupSize);
    const [owner, ...invitees] = members;
    const created = await must(
      201,
      api('POST', '/groups', {
        key: owner.key,
        body: { name: `bench-group-${start}`, invitee_ids: invitees.map((a) => a.id) },
      }),
      'create group',
    );
    const groupId = created.group.group_id;
    for (const invitee of invitees)
      await must(200, api('POST', `/groups/${groupId}/join`, { key: invitee.key }), 'join');
    for (const member of members) {
      member.groups.push(groupId);
      member.channels.add(groupId);
    }
    groups.push(groupId);
  }
  for (const agent of agents) {
    const peer = agents[(agent.index + 1) % agents.length];
    const sent = await must(
      200,
      api('POST', '/messages/direct', {
        key: agent.key,
        body: { to_agent_ids: [peer.id], body: `hello from ${agent.index}` },
      }),
      'seed send',
    );
    agent.channels.add(sent.results[0].channel_id);
    peer.channels.add(sent.results[0].channel_id);
  }
  return { cookie, agents, groups, side };
}

// ---------------------------------------------------------------------------------------------
// The mixed workload: one request per scheduled slot.

function chooseOp() {
  let r = random();
  for (const [op, weight] of MIX) {
    if (r < weight) return op;
    r -= weight;
  }
  return MIX[MIX.length - 1][0];
}

let sequence = 0;
/** Claimed batches waiting for their ACK, oldest first (an ACK slot takes one whole batch). */
const pendingAcks = [];

/** Sends one request of operation `op`; returns [label, ok, detail]. */
async function mixed(op, agents) {
  const agent = pick(agents);
  // An ACK needs something claimed; when nothing is, the slot claims instead (the table reports
  // the realized mix, so this shows).
  if (op === 'ack' && pendingAcks.length === 0) op = 'claim';
  switch (op) {
    case 'directory': {
      const res = await api('GET', '/directory', { key: agent.key });
      return ['directory', res.status === 200, res.status];
    }
    case 'inbox': {
      const res = await api('GET', '/inbox', { key: agent.key });
      return ['inbox', res.status === 200, res.status];
    }
    case 'claim': {
      const res = await api('POST', '/inbox/claim', { key: agent.key, body: { limit: 5 } });
      if (res.status !== 200) return ['claim', false, res.status];
      if (res.body.claims.length > 0) pendingAcks.push({ agent, claims: res.body.claims });
      return ['claim', true];
    }
    case 'ack': {
      const batch = pendingAcks.shift();
      const res = await api('POST', '/inbox/ack', {
        key: batch.agent.key,
        body: { acks: batch.claims.map((c) => ({ message_id: c.message.message_id, claim_token: c.claim_token })) },
      });
      if (res.status !== 200) return ['ack', false, res.status];
      const refused = res.body.results.filter((r) => r.status !== 'read' && r.status !== 'already_read').length;
      // A fresh claim's ACK must be accepted: a refused item is a failure of this request (it is
      // reported under "errors" as `ack refused N`; a detail on a success would be dropped).
      return ['ack', refused === 0, refused ? `refused ${refused}` : undefined];
    }
    case 'direct': {
      const count = 1 + Math.floor(random() * 3);
      const targets = new Set();
      while (targets.size < Math.min(count, agents.length - 1)) {
        const target = pick(agents);
        if (target !== agent) targets.add(target);
      }
      const res = await api('POST', '/messages/direct', {
        key: agent.key,
        body: { to_agent_ids: [...targets].map((t) => t.id), body: `bench ${sequence++} ${random()}` },
      });
      if (res.status !== 200) return ['direct', false, res.status];
      for (const result of res.body.results) if (result.channel_id) agent.channels.add(result.channel_id);
      const unsent = res.body.results.filter((r) => r.status !== 'sent').length;
      return ['direct', unsent === 0, unsent ? `unsent ${unsent}` : undefined];
    }
    case 'group': {
      const res = await api('POST', `/groups/${pick(agent.groups)}/messages`, {
        key: agent.key,
        body: { body: `bench ${sequence++} ${random()}` },
      });
      return ['group', res.status === 200 && res.body.status === 'sent', res.status];
    }
    default: {
      const channel = pick([...agent.channels]);
      const res = await api('GET', `/channels/${channel}/messages?limit=20`, { key: agent.key });
      return ['history', res.status === 200, res.status];
    }
  }
}

/**
 * After an overloaded phase the server may still be working through its backlog: wait (up to
 * 60 s) until the hello route answers within a second again, so that the next phase measures
 * itself and not the previous one's queue. Returns the wait in ms.
 */
async function recover() {
  const started = performance.now();
  while (performance.now() - started < 60_000) {
    const t = performance.now();
    const ok = await request('GET', '/__bench/hello')
      .then((res) => res.status === 200)
      .catch(() => false);
    if (ok && performance.now() - t < 1000) return Math.round(performance.now() - started);
    await sleep(500);
  }
  return Math.round(performance.now() - started);
}

/** Runs the mix open-loop at `rate` req/s for `seconds`; latency from each scheduled time. */
async function openLoop(rate, seconds, agents, procs) {
  const total = Math.round(rate * seconds);
  const interval = 1000 / rate;
  const records = [];
  const inflight = new Set();
  const failures = {};
  const before = cpuSnapshot(procs);
  const t0 = performance.now() + 20;
  let next = 0;
  const fire = (scheduled, op) => {
    const promise = mixed(op, agents)
      .then(([label, ok, detail]) => {
        records.push({ op: label, latency: performance.now() - scheduled, ok });
        if (!ok) failures[`${label} ${detail ?? ''}`.trim()] = (failures[`${label} ${detail ?? ''}`.trim()] ?? 0) + 1;
      })
      .catch((error) => {
        records.push({ op, latency: performance.now() - scheduled, ok: false });
        const key = `${op} ${error.code ?? error.name}`;
        failures[key] = (failures[key] ?? 0) + 1;
      })
      .finally(() => inflight.delete(promise));
    inflight.add(promise);
  };
  while (next < total) {
    const now = performance.now();
    while (next < total && t0 + next * interval <= now) {
      const scheduled = t0 + next * interval;
      next++;
      const op = chooseOp();
      if (inflight.size >= MAX_OUTSTANDING) {
        records.push({ op, latency: Number.POSITIVE_INFINITY, ok: false });
        failures['not sent (client backlog)'] = (failures['not sent (client backlog)'] ?? 0) + 1;
        continue;
      }
      fire(scheduled, op);
    }
    const wait = t0 + next * interval - performance.now();
    if (wait > 1) await sleep(Math.min(wait, 10));
    else await new Promise((resolve) => setImmediate(resolve));
  }
  await Promise.all([...inflight]);
  const after = cpuSnapshot(procs);
  const elapsed = (after.at - t0) / 1000;
  return summarize(records, { offered: rate, seconds, elapsed, cpu: cpuShare(before, after), failures });
}

function stats(records) {
  const latencies = records.map((r) => r.latency).sort((a, b) => a - b);
  return {
    requests: records.length,
    errors: records.filter((r) => !r.ok).length,
    p50: round(percentile(latencies, 50)),
    p90: round(percentile(latencies, 90)),
    p99: round(percentile(latencies, 99)),
    max: round(latencies.at(-1) ?? 0),
  };
}

function summarize(records, { offered, seconds, elapsed, cpu, failures }) {
  const all = stats(records);
  const answered = records.filter((r) => r.ok).length;
  const byOp = {};
  for (const [op] of MIX) {
    const mine = records.filter((r) => r.op === op);
    if (mine.length) byOp[op] = stats(mine);
  }
  const achieved = answered / elapsed;
  const holds =
    all.p99 < HOLD.p99Ms &&
    all.errors / Math.max(1, all.requests) < HOLD.errorRate &&
    achieved >= HOLD.answeredShare * offered;
  return { offered, seconds, ...all, achieved: round(achieved), holds, cpu, failures, byOp };
}

// ---------------------------------------------------------------------------------------------
// Closed loop: `clients` loops each waiting for its answer before the next request.

async function closedLoop(label, path, { method = 'GET', headers = {}, body, expect }, procs) {
  const { clients, seconds, warmupSeconds } = PLAN.closed;
  // A body is a value or a function (a new one per request); text goes as is (a JSON-RPC call),
  // anything else as JSON.
  const send = () => {
    const value = typeof body === 'function' ? body() : body;
    return request(method, path, { headers, ...(typeof value === 'string' ? { raw: value } : { body: value }) });
  };
  // Unmeasured first: connections, JIT and caches warm up for each route alike.
  const warmEnd = performance.now() + warmupSeconds * 1000;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < warmEnd) await send().catch(() => {});
    }),
  );
  let requests = 0;
  let errors = 0;
  const before = cpuSnapshot(procs);
  const deadline = before.at + seconds * 1000;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < deadline) {
        try {
          const res = await send();
          if (res.status !== expect) errors++;
        } catch {
          errors++;
        }
        requests++;
      }
    }),
  );
  const after = cpuSnapshot(procs);
  const perRequest = (field) => round((after[field] - before[field]) / requests, 3);
  return {
    label,
    path,
    clients,
    requests,
    errors,
    rps: round(requests / ((after.at - before.at) / 1000), 0),
    workerdCpuMs: perRequest('workerd'),
    launcherCpuMs: perRequest('launcher'),
    clientCpuMs: perRequest('client'),
    cpu: cpuShare(before, after),
  };
}

/**
 * The hot path with the metrics middleware on and off, in one run on one server: requests with
 * `x-switchboard-bench-metrics: off` are not counted (the launcher honours it only under
 * SWITCHBOARD_BENCH_HELLO). Each path runs on, off, off, on, so a drift of the machine's load
 * over the phase weighs on both sides alike.
 */
async function metricsOverhead(agents, procs) {
  const [from, to] = agents;
  let n = 0;
  const paths = [
    ['GET /me', '/api/v1/me', { headers: { authorization: `Bearer ${from.key}` }, expect: 200 }],
    [
      'POST /messages/direct',
      '/api/v1/messages/direct',
      {
        method: 'POST',
        headers: { authorization: `Bearer ${from.key}` },
        body: () => ({ to_agent_ids: [to.id], body: `metrics overhead ${n++}` }),
        expect: 200,
      },
    ],
  ];
  const out = [];
  for (const [label, path, options] of paths) {
    const runs = { on: [], off: [] };
    for (const side of ['on', 'off', 'off', 'on']) {
      const headers = side === 'off' ? { ...options.headers, 'x-switchboard-bench-metrics': 'off' } : options.headers;
      runs[side].push(await closedLoop(`${label}, metrics ${side}`, path, { ...options, headers }, procs));
    }
    const mean = (list, field) => round(list.reduce((sum, r) => sum + r[field], 0) / list.length, 3);
    const row = { label, errors: 0 };
    for (const side of ['on', 'off']) {
      row[side] = { rps: mean(runs[side], 'rps'), workerdCpuMs: mean(runs[side], 'workerdCpuMs') };
      row.errors += runs[side].reduce((sum, r) => sum + r.errors, 0);
    }
    row.workerdCostPct = round(((row.on.workerdCpuMs - row.off.workerdCpuMs) / row.off.workerdCpuMs) * 100, 1);
    out.push(row);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Remote MCP against HTTP: the same operation as a tool call of `/mcp` and as its API request,
// closed loop, workerd CPU per request.

async function mcpCost(agents, procs) {
  const [a, b] = agents;
  const auth = { authorization: `Bearer ${a.key}` };
  const rpc = { ...auth, accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
  let id = 0;
  const call = (name, args) => () =>
    JSON.stringify({ jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name, arguments: args } });
  const send = { to_agent_ids: [b.id], body: 'bench: mcp against http' };
  const pairs = [
    {
      label: 'whoami / GET /me',
      mcp: ['POST', '/mcp', { headers: rpc, body: call('whoami', {}), expect: 200 }],
      http: ['GET', '/api/v1/me', { headers: auth, expect: 200 }],
    },
    {
      label: 'send_message / POST /messages/direct',
      mcp: ['POST', '/mcp', { headers: rpc, body: call('send_message', send), expect: 200 }],
      http: [
        'POST',
        '/api/v1/messages/direct',
        { headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(send), expect: 200 },
      ],
    },
  ];
  const out = [];
  for (const pair of pairs) {
    const [mcpMethod, mcpPath, mcpOptions] = pair.mcp;
    const [httpMethod, httpPath, httpOptions] = pair.http;
    const mcp = await closedLoop(`${pair.label} (/mcp)`, mcpPath, { method: mcpMethod, ...mcpOptions }, procs);
    const http = await closedLoop(`${pair.label} (HTTP)`, httpPath, { method: httpMethod, ...httpOptions }, procs);
    out.push({ label: pair.label, mcp, http, ratio: round(mcp.workerdCpuMs / http.workerdCpuMs, 2) });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Start-up: `npm start` on the built tree, then a restart after SIGKILL on the same data.

async function startTimes() {
  let stale = '';
  try {
    execFileSync(process.execPath, ['scripts/build-stale.mjs', '--check'], { stdio: 'pipe' });
  } catch (error) {
    stale = String(error.stderr).trim();
  }
  const npmStart = ['npm', 'start', '--silent', '--'];
  const first = await startServer('switchboard-bench-start-', { command: npmStart });
  await first.crash();
  const afterKill = await startServer('', { command: npmStart, dataDir: first.dataDir });
  await afterKill.stop({ keepData: true });
  const again = await startServer('', { command: npmStart, dataDir: first.dataDir });
  await again.stop();
  const figures = (s) => ({ ms: round(s.readyMs, 0), cpuMs: round(s.readyCpuMs, 0) });
  return { first: figures(first), afterKill: figures(afterKill), existing: figures(again), staleBefore: stale || null };
}

// ---------------------------------------------------------------------------------------------

const results = {
  date: new Date().toISOString(),
  quick: QUICK,
  machine: machine(),
  cpus: os.cpus().length,
  plan: PLAN,
  load: { atStart: loadAverage() },
};
const log = (text) => process.stdout.write(`${text}\n`);

// First, on a quiet machine: a server of its own, as `npm start` runs it.
if (values.phase === undefined || values.phase === 'memory') {
  results.memory = await memoryRun({ log, ...PLAN.memory });
  if (values.phase === 'memory') {
    log(JSON.stringify(results.memory));
    process.exit(0);
  }
}

if (PLAN.startTimes && values.phase === undefined) {
  results.start = await startTimes();
  const { first, afterKill, existing } = results.start;
  log(`start to ready: first ${first.ms} ms, after SIGKILL ${afterKill.ms} ms, existing data ${existing.ms} ms`);
}

const server = await startServer('switchboard-bench-', { env: { SWITCHBOARD_BENCH_HELLO: '1' } });
pool = new Pool(server.base, { connections: 256 });
const procs = serverProcesses(server.pid);
// Interrupted: stop the server rather than leave it running.
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    server.stop().finally(() => process.exit(130));
  });
}
let failed = false;
try {
  if (procs.workerd.length === 0) log('warning: no workerd process found under the launcher (CPU figures will be 0)');
  const { agents, cookie, side } = await setUp();

  // The ceilings and the upload first, on a server with no backlog: an open-loop phase beyond
  // capacity can leave workerd working through queued Durable Object calls for minutes.
  const agent = agents[0];
  if (values.phase === 'mcp') {
    const pairs = await mcpCost(side, procs);
    for (const pair of pairs)
      log(JSON.stringify({ label: pair.label, ratio: pair.ratio, mcp: pair.mcp, http: pair.http }));
    await server.stop();
    process.exit(pairs.some((p) => p.mcp.errors + p.http.errors > 0) ? 1 : 0);
  }
  if (values.phase === 'import') {
    results.import = await importRun({ quick: QUICK, log, api, cookie });
    await server.stop();
    const ok = results.import.problems.length === 0;
    for (const problem of results.import.problems) log(`problem: ${problem}`);
    if (ok && !QUICK) {
      writeSection(values.out, IMPORT_SECTION, importReport(results));
      execFileSync('npx', ['biome', 'format', '--write', values.out], { stdio: 'ignore' });
      log(`wrote ${values.out}`);
    }
    process.exit(ok ? 0 : 1);
  }
  if (values.phase === undefined) {
    results.startup = await startupRun({ quick: QUICK, log, url: server.base, key: agent.key });
    results.import = await importRun({ quick: QUICK, log, api, cookie });
  }
  results.closed = [
    await closedLoop('hello worker (same front and Miniflare)', '/__bench/hello', { expect: 200 }, procs),
    await closedLoop('Switchboard, unknown API path (404)', '/api/v1/__bench_none', { expect: 404 }, procs),
    await closedLoop(
      'GET /me (authenticated)',
      '/api/v1/me',
      { headers: { authorization: `Bearer ${agent.key}` }, expect: 200 },
      procs,
    ),
  ];
  for (const c of results.closed) {
    log(
      `${c.label}: ${c.rps} req/s, workerd ${c.workerdCpuMs} ms/req, launcher ${c.launcherCpuMs} ms/req, errors ${c.errors}`,
    );
  }
  if (values.phase === 'ceilings') {
    const [hello, ...rest] = results.closed;
    for (const c of rest) {
      const ratio = (field) => (c[field] / hello[field]).toFixed(2);
      log(
        `${c.label}: ${ratio('workerdCpuMs')}× the hello route's workerd CPU, ${ratio('launcherCpuMs')}× its launcher CPU`,
      );
    }
    await server.stop();
    process.exit(results.closed.some((c) => c.errors > 0) ? 1 : 0);
  }
  results.metricsOverhead = await metricsOverhead(side, procs);
  for (const m of results.metricsOverhead) {
    log(
      `${m.label}: metrics on ${m.on.rps} req/s, ${m.on.workerdCpuMs} ms/req; off ${m.off.rps} req/s, ` +
        `${m.off.workerdCpuMs} ms/req (workerd CPU ${m.workerdCostPct} %), errors ${m.errors}`,
    );
  }
  results.mcp = await mcpCost(side, procs);
  for (const pair of results.mcp) {
    log(
      `${pair.label}: /mcp ${pair.mcp.workerdCpuMs} ms/req, HTTP ${pair.http.workerdCpuMs} ms/req of workerd CPU (${pair.ratio}×), errors ${pair.mcp.errors + pair.http.errors}`,
    );
  }
  results.upload = await uploadMemory(api, side, procs.launcher, PLAN.uploadBytes);
  log(`upload ${results.upload.bytes} B: ${results.upload.status}, RSS rise ${results.upload.riseMb} MB`);
  // The same bytes through a bare worker in the same Miniflare: the part of the rise that is not ours.
  results.upload.floor = await uploadFloor(PLAN.uploadBytes);
  log(
    `upload floor (bare worker): R2 put +${results.upload.floor.put.riseMb} MB, put and copy +${results.upload.floor.putAndCopy.riseMb} MB`,
  );
  results.fsyncMs = fsyncLatencyMs(server.dataDir);
  log(`disk: median 4 KB write + fsync in the data dir ${results.fsyncMs} ms`);
  results.req49 = await openLoop(PLAN.req49.rate, PLAN.req49.seconds, agents, procs);
  results.req49.recoveryMs = await recover();
  results.load.afterReq49 = loadAverage();
  const r = results.req49;
  log(`REQ-49 ${r.offered} req/s × ${r.seconds} s: p50 ${r.p50} p99 ${r.p99} ms, errors ${r.errors}/${r.requests}`);

  results.ramp = [];
  let failedSteps = 0;
  for (const rate of PLAN.ramp) {
    const step = await openLoop(rate, PLAN.rampSeconds, agents, procs);
    step.load = loadAverage();
    step.recoveryMs = await recover();
    results.ramp.push(step);
    log(
      `ramp ${rate} req/s: achieved ${step.achieved}, p50 ${step.p50} p99 ${step.p99} ms, errors ${step.errors}, ` +
        `workerd ${step.cpu.workerdPct}% launcher ${step.cpu.launcherPct}% client ${step.cpu.clientPct}% → ${step.holds ? 'holds' : 'fails'}`,
    );
    if (!step.holds && ++failedSteps >= 2) break;
  }
  results.highestHeld = Math.max(0, ...results.ramp.filter((s) => s.holds).map((s) => s.offered));

  results.load.atEnd = loadAverage();
} catch (error) {
  failed = true;
  log(`bench failed: ${error.stack ?? error}`);
} finally {
  await pool.close().catch(() => {});
  await server.stop();
}

// --quick checks completion and zero errors, never speed.
// The scale phases (scripts/bench-scale.mjs) on a server of their own: one lowers a global limit.
if (!failed) results.scale = await scaleRun({ quick: QUICK, log });

const problems = [];
for (const problem of results.scale?.problems ?? []) problems.push(problem);
for (const problem of results.import?.problems ?? []) problems.push(`import: ${problem}`);
if (failed) problems.push('a phase threw');
for (const run of [results.req49, ...(results.ramp ?? [])]) {
  if (run && QUICK && run.errors > 0)
    problems.push(`${run.offered} req/s: ${run.errors} errors ${JSON.stringify(run.failures)}`);
}
for (const c of results.closed ?? []) if (c.errors > 0) problems.push(`${c.label}: ${c.errors} errors`);
for (const m of results.metricsOverhead ?? [])
  if (m.errors > 0) problems.push(`${m.label} (metrics on/off): ${m.errors} errors`);
for (const pair of results.mcp ?? []) {
  for (const c of [pair.mcp, pair.http]) if (c.errors > 0) problems.push(`${c.label}: ${c.errors} errors`);
}
if (results.upload && !(results.upload.ok && results.upload.again.ok))
  problems.push(`upload answered ${results.upload.status}, then ${results.upload.again.status}`);
results.problems = problems;

const jsonFile = values.json ?? (QUICK ? null : 'docs/benchmarks.json');
if (jsonFile) {
  const { writeFileSync } = await import('node:fs');
  writeFileSync(jsonFile, `${JSON.stringify(results, null, 2)}\n`);
  log(`wrote ${jsonFile}`);
}
if (!QUICK && !failed) {
  const { writeFileSync } = await import('node:fs');
  writeFileSync(values.svg, latencyChart(results.ramp, HOLD.p99Ms));
  removeSection(values.out, '## Ordinary API operations (REQ-49)');
  if (results.scale) writeSection(values.out, SCALE_SECTION, `${SCALE_SECTION}\n\n${scaleReport(results.scale)}\n`);
  writeSection(values.out, SECTION, report(results));
  if (results.startup) writeSection(values.out, STARTUP_SECTION, startupReport(results));
  if (results.import) writeSection(values.out, IMPORT_SECTION, importReport(results));
  if (results.memory) writeSection(values.out, MEMORY_SECTION, memoryReport(results));
  // The repository's formatter owns the layout of committed files (`npm run check` runs it).
  execFileSync('npx', ['biome', 'format', '--write', values.out, jsonFile], { stdio: 'ignore' });
  log(`wrote ${values.out} and ${values.svg}`);
}
if (problems.length) {
  log(`problems:\n  ${problems.join('\n  ')}`);
  process.exitCode = 1;
}

// ---------------------------------------------------------------------------------------------
// docs/benchmarks.md

/** The backlog wait of an open-loop phase; recover() gives up after 60 s. */
function cleared(ms) {
  return ms >= 60_000 ? 'not within 60,000' : String(ms);
}

/** The floor under the first upload's rise (bench-upload-floor.mjs), when it was measured. */
function floorSentence(upload) {
  const floor = upload.floor;
  if (!floor) return '';
  return (
    `The floor, the same ${upload.bytes / 1e6} MB through a bare worker (no Switchboard code) on a fresh ` +
    `Miniflare of the same version: workerd rose by **${floor.put.riseMb} MB** for a plain streamed R2 put ` +
    `and by **${floor.putAndCopy.riseMb} MB** for a put and one copy (what a send to one target does); ` +
    `that much of the first upload's rise is the runtime's and Miniflare's R2 object's.`
  );
}

/** One upload's rise per process, e.g. `workerd +30.1 MB (107.6 → 137.7)`. */
function perProcess(upload) {
  return upload.processes.map((p) => `${p.comm} +${p.riseMb} MB (${p.baselineMb} → ${p.peakMb})`).join(', ');
}

function report(r) {
  const ms = (n) => (Number.isFinite(n) ? String(n) : '–');
  const opRows = Object.entries(r.req49.byOp)
    .map(
      ([op, s]) =>
        `| ${op} | ${s.requests} | ${ms(s.p50)} | ${ms(s.p90)} | ${ms(s.p99)} | ${ms(s.max)} | ${s.errors} |`,
    )
    .join('\n');
  const rampRows = r.ramp
    .map(
      (s) =>
        `| ${s.offered} | ${s.achieved} | ${ms(s.p50)} | ${ms(s.p99)} | ${ms(s.max)} | ${s.errors} | ` +
        `${s.cpu.workerdPct} | ${s.cpu.launcherPct} | ${s.cpu.clientPct} | ${s.load[0]} | ${cleared(s.recoveryMs)} | ${s.holds ? 'yes' : 'no'} |`,
    )
    .join('\n');
  const hello = r.closed[0];
  const closedRows = r.closed
    .map(
      (c) =>
        `| ${c.label} | ${c.rps} | ${round(c.rps / hello.rps, 2)} | ${c.workerdCpuMs} | ${round(c.workerdCpuMs / hello.workerdCpuMs, 1)}× | ` +
        `${c.launcherCpuMs} | ${c.errors} |`,
    )
    .join('\n');
  const failures = (run) =>
    Object.keys(run.failures).length
      ? Object.entries(run.failures)
          .map(([k, v]) => `${k}: ${v}`)
          .join(', ')
      : 'none';
  return `## ${SECTION_NAME}

Generated by \`npm run bench\` (scripts/bench.mjs) on ${r.date.slice(0, 16).replace('T', ' ')} UTC; raw figures in
[benchmarks.json](benchmarks.json). Machine: ${r.machine}. Load average (1/5/15 min) at the
start ${r.load.atStart.join(' / ')}, at the end ${r.load.atEnd.join(' / ')}. Disk: a 4 KB write + fsync in the
data dir took ${r.fsyncMs} ms (median); workerd fsyncs each Durable Object commit on its one thread.

**Provisional.** The machine was shared with other work while this ran (see the load averages:
${r.cpus} cores), and the client runs on the same cores as the server. Absolute figures are
therefore lower bounds that move from run to run; the ratios to the hello worker, measured in the
same run through the same front and Miniflare, are the figures to compare between runs.

Method: the real server (\`switchboard serve\`, persistence on, a temporary data dir,
\`SWITCHBOARD_BENCH_HELLO=1\`), ${r.plan.agents} agents on host 127.0.0.1, groups of ${r.plan.groupSize}
covering every agent, one client process with a keep-alive pool (undici). The mix per scheduled
request: 20% \`GET /directory\`, 20% \`GET /inbox\`, 15% \`POST /inbox/claim\` (limit 5), 15%
\`POST /inbox/ack\` (one claimed batch; a claim when nothing is waiting), 15% direct send to 1–3
random agents, 5% group send, 10% \`GET /channels/{id}/messages\`. Open loop: request *i* is sent
at *t0 + i/rate* whatever earlier requests did, and its latency counts from that scheduled time,
so queueing anywhere (server or client) shows as latency (no coordinated omission). Unanswered
after ${TIMEOUT_MS / 1000} s, any non-2xx status or a send result other than \`sent\` is an error. CPU
is read from \`/proc/<pid>/stat\` (utime + stime) of workerd, the launcher (front + Miniflare's
Node side) and the client. Phases run in this order: start-up, the closed-loop ceilings, the upload, the
REQ-49 run (the closed-loop phases that send use two agents of their own, so no channel of the mix
starts at its message cap), the ramp, then the scale phases (section "Issue 12 scale phases") on a server of their own; after each open-loop phase the bench waits (up to 60 s) until the hello route
answers within a second again, since a phase beyond capacity leaves a backlog of queued work.

### Start-up

${
  r.start
    ? `Wall time from spawning \`npm start\` to its ready line, and the CPU time the server's processes
(launcher and workerd, not npm) had used by then: the CPU figure hardly depends on how busy the
machine is, the wall time does.

| Start | ms to ready | CPU ms used |
|---|---|---|
| first start on a built tree, fresh data dir (creates the data dir and the administrator) | ${r.start.first.ms} | ${r.start.first.cpuMs} |
| restart after SIGKILL of the launcher, same data dir | ${r.start.afterKill.ms} | ${r.start.afterKill.cpuMs} |
| start after a clean stop, same data dir | ${r.start.existing.ms} | ${r.start.existing.cpuMs} |

${r.start.staleBefore ? `The tree was stale before the run (${r.start.staleBefore}): the first start included a rebuild.` : 'Nothing was stale: `npm start` rebuilt nothing (scripts/build-stale.mjs).'}`
    : 'Not measured in this run.'
}

### REQ-49: ${r.req49.offered} req/s for ${r.req49.seconds} s, the mix

All: ${r.req49.requests} requests, p50 ${r.req49.p50} ms, p90 ${r.req49.p90} ms, p99 ${r.req49.p99} ms, max ${r.req49.max} ms,
${r.req49.errors} errors (${failures(r.req49)}); answered ${r.req49.achieved} req/s; workerd at
${r.req49.cpu.workerdPct}% of a core, launcher ${r.req49.cpu.launcherPct}%. The hello route answered within 1 s again
after the run: ${cleared(r.req49.recoveryMs)} ms.

| Operation | Requests | p50 ms | p90 ms | p99 ms | max ms | Errors |
|---|---|---|---|---|---|---|
${opRows}

### Open-loop ramp, the mix, ${r.plan.rampSeconds} s a step

A step holds when p99 < ${HOLD.p99Ms} ms, errors < ${HOLD.errorRate * 100}% and at least ${HOLD.answeredShare * 100}% of the
offered rate is answered; the ramp stops after two failed steps. **Highest step held: ${r.highestHeld ? `${r.highestHeld} req/s` : 'none'}.**
CPU columns are % of one core over the step.

| Offered req/s | Answered req/s | p50 ms | p99 ms | max ms | Errors | workerd % | launcher % | client % | load (1 min) | Backlog cleared after ms | Holds |
|---|---|---|---|---|---|---|---|---|---|---|---|
${rampRows}

![Latency against offered load](benchmarks-latency.svg)

### Closed-loop ceilings and CPU per request

${r.plan.closed.clients} clients, ${r.plan.closed.seconds} s each. The hello worker is a one-line worker
(\`new Response("hello")\`) in the same Miniflare, routed by Miniflare's entry worker and reached through
the same Node front: what the self-host shell alone costs. The unknown API path runs the Switchboard
worker's fixed middleware (request ID, client address, front secret check, routing, a structured
404) without any Durable Object call (settings are cached). CPU columns are milliseconds of CPU per
request, summed over the run and divided by the requests.

| Route | req/s | × hello req/s | workerd CPU ms/req | × hello | launcher CPU ms/req | Errors |
|---|---|---|---|---|---|---|
${closedRows}

### The metrics middleware on the hot path

The same closed loop with the request metrics counted (on) and not counted (off, a request header
the launcher honours only in this bench), on, off, off, on for each path, on one server in one run.

| Path | on req/s | off req/s | on workerd CPU ms/req | off workerd CPU ms/req | workerd CPU on vs off | Errors |
|---|---|---|---|---|---|---|
${(r.metricsOverhead ?? [])
  .map(
    (m) =>
      `| ${m.label} | ${m.on.rps} | ${m.off.rps} | ${m.on.workerdCpuMs} | ${m.off.workerdCpuMs} | ${m.workerdCostPct} % | ${m.errors} |`,
  )
  .join('\n')}

A negative figure is no saving: the middleware only adds work. The runs of one path differ by
up to about 15 % on this shared two-core box (the client shares the cores and the machine's other
load drifts), so what the table shows is that the middleware's cost is below what this bench can
resolve here, not its size.

### Remote MCP against HTTP

The same operation as a tool call of \`/mcp\` (one JSON-RPC \`tools/call\` per request, stateless, answered
as SSE) and as its API request, closed loop as above, workerd CPU per request (the target: at most 1.3 times
HTTP). Numbers under load are rough; the ratio, measured in the same run, is the figure to compare.

| Operation | /mcp workerd ms/req | HTTP workerd ms/req | Ratio | /mcp req/s | HTTP req/s | Errors |
|---|---|---|---|---|---|---|
${(r.mcp ?? [])
  .map(
    (p) =>
      `| ${p.label} | ${p.mcp.workerdCpuMs} | ${p.http.workerdCpuMs} | ${p.ratio}× | ${p.mcp.rps} | ${p.http.rps} | ${p.mcp.errors + p.http.errors} |`,
  )
  .join('\n')}

### Memory during a ${r.upload.bytes / 1e6} MB upload

The summed resident memory of the server's process tree (launcher, workerd, orphan guard), sampled
every 10 ms during the server's first upload (no file was uploaded before it): ${r.upload.baselineMb} MB before,
${r.upload.peakMb} MB at the peak, a rise of **${r.upload.riseMb} MB** (answered ${r.upload.status} in ${r.upload.ms} ms).
Per process (peak minus baseline): ${perProcess(r.upload)}. The same upload again, a second later:
a rise of **${r.upload.again.riseMb} MB** (${perProcess(r.upload.again)}; answered ${r.upload.again.status} in ${r.upload.again.ms} ms).
${floorSentence(r.upload)}
`;
}

function importReport(r) {
  const i = r.import;
  return `${IMPORT_SECTION}

Generated by \`npm run bench\` (scripts/bench-import.mjs) on ${r.date.slice(0, 10)} (${r.machine}): ${i.agents} agents
created by POST /admin/agents/import in requests of ${i.perRequest} rows, from the first request to the last
answer (each answer comes once every new agent's key works). Target: at least ${IMPORT_TARGET_PER_SECOND} agents per second.
The import writes the registry's rows only; each agent's own object is made on its first request
(docs/design/authentication.md). Making the objects during the import (a new SQLite database
each, about 10 ms of the one thread) held it at 65 agents per second.

| Agents | Seconds | Agents per second | Target |
| -----: | ------: | ----------------: | ------ |
| ${i.agents} | ${i.seconds} | ${i.perSecond} | ${i.holds ? 'holds' : 'fails'} |
`;
}

function startupReport(r) {
  return `${STARTUP_SECTION}

Generated by \`npm run bench\` (scripts/bench-startup.mjs) on ${r.date.slice(0, 10)} (${r.machine}): ${r.startup.rounds}
rounds after ${r.startup.warmup} warm-up, each command and its bare Node counterpart in fresh processes,
alternating, so both see the same load. \`mcp\`: spawn to the answer of \`tools/list\` (initialize,
initialized and tools/list sent at once), against a bare Node process answering the same two
requests; \`--version\`: spawn to exit, against Node printing a version; \`inbox\`: spawn to exit
against the real server on loopback, against Node making the same GET /inbox with node:http.
Target: median at most 2 × the bare median + 100 ms.

${startupTable(r.startup)}
`;
}

function memoryReport(r) {
  const m = r.memory;
  const row = (label, reading) => `| ${label} | ${reading.rssMb} | ${reading.pssMb} | ${memoryPerProcess(reading)} |`;
  const rows = [
    row('at the ready line', m.ready),
    row('after set-up (administrator, host, 4 agents, 3 messages)', m.setUp),
    row(`after ${m.idleSeconds} s idle`, m.idle),
  ];
  for (const g of m.growth) {
    rows.push(row(`${g.messages} messages stored (${g.channels} channels), right after`, g.after));
    rows.push(row(`… after ${m.idleSeconds} s idle`, g.idle));
  }
  if (m.withFiles) {
    rows.push(row(`and ${m.withFiles.files} × 1 MB attachments, right after`, m.withFiles.after));
    rows.push(row(`… after ${m.idleSeconds} s idle`, m.withFiles.idle));
  }
  return `${MEMORY_SECTION}

Generated by \`npm run bench\` (scripts/bench-memory.mjs) on ${r.date.slice(0, 10)} (${r.machine}): a server of its
own on a fresh data dir, started as \`npm start\` runs it. MB are MiB; RSS is VmRSS, PSS from
/proc/<pid>/smaps_rollup (code pages shared with other node or workerd processes count in part).
Target (issue 26): at most 200 MB RSS after set-up and idling. The analysis is in the section "Idle memory".

| state | RSS MB | PSS MB | RSS per process MB |
| --- | --- | --- | --- |
${rows.join('\n')}
`;
}
