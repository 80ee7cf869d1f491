// `npm run profile -- --op me --seconds 10`: CPU profiles of workerd under load.
//
// Starts the real server with SWITCHBOARD_INSPECTOR_PORT (workerd's V8 inspector on loopback; off
// unless asked) on a free port, connects to every isolate it lists over the DevTools protocol,
// records Profiler.start/stop while closed-loop clients drive one operation, saves one
// .cpuprofile per isolate that did work (open them in Chrome DevTools or speedscope), and prints:
//   - per isolate (Switchboard's worker and its Durable Objects, Miniflare's core:entry, …): the
//     JavaScript-thread time it used, in total and per request;
//   - the top self-time functions, with Switchboard's positions mapped back to the source files
//     through dist/worker/index.js.map;
//   - Switchboard's self time grouped by source file.
// A sampling profile sees time spent on each isolate's thread (JavaScript, and native work V8
// attributes to "(program)" or "(garbage collector)"), not workerd's I/O threads or its C++
// outside a JavaScript call; `npm run bench` reads the whole process's CPU from /proc.
//
// `--op mix` drives the mix of `npm run bench` (20% directory, 20% inbox, 15% claim, 15% ACK,
// 15% direct send to 1..3 targets, 5% group send, 10% history) closed-loop over 12 agents, and
// prints how many requests of each kind it made, so the per-request figure is the mix's own.
//
// Usage: npm run profile -- [--op me|directory|inbox|limits|history|send|claim|import|mix|hello|none|mcp-whoami|mcp-send]
//        [--seconds 10] [--clients 16] [--rate N (open loop at N req/s instead of closed-loop clients;
//        the clients then only pick the agents)] [--top 30] [--targets NAME,NAME (isolates whose id contains one)]
//        [--out DIR (default $TMPDIR/switchboard-profiles)] [--interval 500 (µs)] [--json FILE]
//        [--max-messages N (sets max_messages_per_channel first: a low cap puts every channel of
//        `--op send` at its cap during the warm-up, so the profile shows retention's purge per send)]
//        [--read-backlog N (before the run, each agent receives N messages from the next one and
//        claims and ACKs them all: a long-lived channel's read deliveries, for --op claim/inbox)]
//        [--unread-backlog N (the same N messages left unread: an agent with a backlog, for --op inbox)]
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Pool, WebSocket } from 'undici';
import { ADMIN_PASSWORD, cpuMs, loadAverage, machine, processTree, startServer } from './bench-kit.mjs';

const { values } = parseArgs({
  options: {
    op: { type: 'string', default: 'me' },
    seconds: { type: 'string', default: '10' },
    clients: { type: 'string', default: '16' },
    rate: { type: 'string' },
    top: { type: 'string', default: '30' },
    out: { type: 'string', default: join(os.tmpdir(), 'switchboard-profiles') },
    interval: { type: 'string', default: '500' },
    json: { type: 'string' },
    targets: { type: 'string' },
    'max-messages': { type: 'string' },
    'read-backlog': { type: 'string' },
    'unread-backlog': { type: 'string' },
  },
});
const SECONDS = Number(values.seconds);
const CLIENTS = Number(values.clients);
/** Open loop at this many requests per second (the same work per request in A/B runs); else closed loop. */
const RATE = values.rate ? Number(values.rate) : null;
const TOP = Number(values.top);
/** Agents per request of `--op import`. */
const IMPORT_BATCH = 50;

async function freePort() {
  const server = net.createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

// ---------------------------------------------------------------------------------------------
// The DevTools protocol over one WebSocket per isolate.

function devtools(url) {
  const socket = new WebSocket(url);
  const pending = new Map();
  let nextId = 1;
  socket.addEventListener('message', (event) => {
    const message = JSON.parse(String(event.data));
    const waiter = pending.get(message.id);
    if (!waiter) return;
    pending.delete(message.id);
    if (message.error) waiter.reject(new Error(`${message.error.message} (${url})`));
    else waiter.resolve(message.result);
  });
  const opened = new Promise((resolve, reject) => {
    socket.addEventListener('open', resolve, { once: true });
    socket.addEventListener('error', () => reject(new Error(`cannot connect to ${url}`)), { once: true });
  });
  return {
    opened,
    send(method, params = {}) {
      const id = nextId++;
      socket.send(JSON.stringify({ id, method, params }));
      return new Promise((resolve, reject) => pending.set(id, { resolve, reject }));
    },
    close: () => socket.close(),
  };
}

// ---------------------------------------------------------------------------------------------
// The load: a few agents, then closed-loop clients repeating one operation.

const MCP_ACCEPT = 'application/json, text/event-stream';
const toolCall = (id, name, args) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

async function prepare(pool) {
  const call = async (method, path, { key, cookie, body, accept } = {}) => {
    const headers = {};
    if (key) headers.authorization = `Bearer ${key}`;
    if (cookie) headers.cookie = cookie;
    if (accept) headers.accept = accept;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await pool.request({
      method,
      path,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.body.text();
    return { status: res.statusCode, headers: res.headers, body: text.startsWith('{') ? JSON.parse(text) : text };
  };
  const login = await call('POST', '/api/v1/admin/login', { body: { username: 'admin', password: ADMIN_PASSWORD } });
  const cookie = String(login.headers['set-cookie']).split(';')[0];
  if (values['max-messages'] !== undefined) {
    const set = await call('PATCH', '/api/v1/admin/settings', {
      cookie,
      body: { max_messages_per_channel: Number(values['max-messages']) },
    });
    if (set.status !== 200) throw new Error(`PATCH /admin/settings: ${set.status} ${JSON.stringify(set.body)}`);
  }
  const host = (
    await call('POST', '/api/v1/admin/hosts', { cookie, body: { name: 'profile', addresses: ['127.0.0.1'] } })
  ).body.host;
  const agents = [];
  for (let i = 0; i < (values.op === 'mix' ? 12 : 4); i++) {
    const created = await call('POST', '/api/v1/admin/agents', {
      cookie,
      body: { name: `profile-${i}`, host_id: host.host_id },
    });
    agents.push({ id: created.body.agent.agent_id, key: created.body.api_key });
  }
  const sent = await call('POST', '/api/v1/messages/direct', {
    key: agents[0].key,
    body: { to_agent_ids: [agents[1].id], body: 'seed' },
  });
  const channel = sent.body.results[0].channel_id;
  const unread = values['unread-backlog'] !== undefined;
  const backlog = Number(values['read-backlog'] ?? values['unread-backlog'] ?? 0);
  for (let i = 0; i < agents.length && backlog > 0; i++) {
    const from = agents[(i + 1) % agents.length];
    for (let m = 0; m < backlog; m++) {
      const res = await call('POST', '/api/v1/messages/direct', {
        key: from.key,
        body: { to_agent_ids: [agents[i].id], body: `backlog ${m}` },
      });
      if (res.status !== 200) throw new Error(`backlog send: ${res.status}`);
    }
    while (!unread) {
      const res = await call('POST', '/api/v1/inbox/claim', { key: agents[i].key, body: { limit: 100 } });
      if (res.status !== 200) throw new Error(`backlog claim: ${res.status}`);
      if (res.body.claims.length === 0) break;
      const acks = res.body.claims.map((c) => ({ message_id: c.message.message_id, claim_token: c.claim_token }));
      const ack = await call('POST', '/api/v1/inbox/ack', { key: agents[i].key, body: { acks } });
      if (ack.status !== 200) throw new Error(`backlog ack: ${ack.status}`);
    }
  }
  let n = 0;
  const key = (i) => agents[i % agents.length].key;
  /** One request of the chosen operation from client `i`: [method, path, options, expected status]. */
  const ops = {
    me: (i) => ['GET', '/api/v1/me', { key: key(i) }, 200],
    directory: (i) => ['GET', '/api/v1/directory', { key: key(i) }, 200],
    inbox: (i) => ['GET', '/api/v1/inbox', { key: key(i) }, 200],
    limits: (i) => ['GET', '/api/v1/limits', { key: key(i) }, 200],
    history: () => ['GET', `/api/v1/channels/${channel}/messages?limit=20`, { key: agents[0].key }, 200],
    send: (i) => [
      'POST',
      '/api/v1/messages/direct',
      { key: key(i), body: { to_agent_ids: [agents[(i + 1) % agents.length].id], body: `profile ${n++}` } },
      200,
    ],
    // Nothing is waiting after the first few: this is the cost of an empty claim.
    claim: (i) => ['POST', '/api/v1/inbox/claim', { key: key(i), body: { limit: 5 } }, 200],
    // IMPORT_BATCH new agents a request (the per-agent cost is the per-request figure over that).
    import: () => [
      'POST',
      '/api/v1/admin/agents/import',
      {
        cookie,
        body: { agents: Array.from({ length: IMPORT_BATCH }, () => ({ name: `imported-${n++}`, host: host.host_id })) },
      },
      201,
    ],
    hello: () => ['GET', '/__bench/hello', {}, 200],
    // The bench's /mcp rows (scripts/bench.mjs, mcpCost): one JSON-RPC tools/call per request.
    'mcp-whoami': (i) => ['POST', '/mcp', { key: key(i), accept: MCP_ACCEPT, body: toolCall(n++, 'whoami', {}) }, 200],
    'mcp-send': (i) => [
      'POST',
      '/mcp',
      {
        key: key(i),
        accept: MCP_ACCEPT,
        body: toolCall(n++, 'send_message', {
          to_agent_ids: [agents[(i + 1) % agents.length].id],
          body: `profile ${n}`,
        }),
      },
      200,
    ],
    none: () => ['GET', '/api/v1/__profile_none', {}, 404],
    mix: values.op === 'mix' ? await mixOp(call, agents) : null,
  };
  if (!ops[values.op]) throw new Error(`--op must be one of ${Object.keys(ops).join(', ')}`);
  return { call, op: ops[values.op], counts: ops.mix?.counts, latency: ops.mix?.latency };
}

/**
 * The bench's mix (scripts/bench.mjs, MIX) as one closed-loop operation: each call picks a kind
 * by weight (a fixed seed) and returns a function that makes the request and answers whether it
 * succeeded. Groups of 4 cover the agents; every agent starts with one private channel.
 */
async function mixOp(call, agents) {
  let seed = 12;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const pick = (list) => list[Math.floor(random() * list.length)];
  for (const agent of agents) {
    agent.channels = new Set();
    agent.groups = [];
  }
  for (let start = 0; start + 1 < agents.length; start += 4) {
    const [owner, ...invitees] = agents.slice(start, start + 4);
    const created = await call('POST', '/api/v1/groups', {
      key: owner.key,
      body: { name: `profile-group-${start}`, invitee_ids: invitees.map((a) => a.id) },
    });
    const groupId = created.body.group.group_id;
    for (const invitee of invitees) await call('POST', `/api/v1/groups/${groupId}/join`, { key: invitee.key });
    for (const member of [owner, ...invitees]) {
      member.groups.push(groupId);
      member.channels.add(groupId);
    }
  }
  for (const [i, agent] of agents.entries()) {
    const peer = agents[(i + 1) % agents.length];
    const sent = await call('POST', '/api/v1/messages/direct', {
      key: agent.key,
      body: { to_agent_ids: [peer.id], body: `hello from ${i}` },
    });
    agent.channels.add(sent.body.results[0].channel_id);
    peer.channels.add(sent.body.results[0].channel_id);
  }
  const weights = [
    ['directory', 0.2],
    ['inbox', 0.2],
    ['claim', 0.15],
    ['ack', 0.15],
    ['direct', 0.15],
    ['group', 0.05],
    ['history', 0.1],
  ];
  const counts = Object.fromEntries(weights.map(([kind]) => [kind, 0]));
  const latency = Object.fromEntries(weights.map(([kind]) => [kind, 0]));
  const pendingAcks = [];
  let n = 0;
  const op = () => {
    let r = random();
    let kind = weights.at(-1)[0];
    for (const [k, w] of weights) {
      if (r < w) {
        kind = k;
        break;
      }
      r -= w;
    }
    if (kind === 'ack' && pendingAcks.length === 0) kind = 'claim';
    counts[kind]++;
    const agent = pick(agents);
    return async () => {
      const started = performance.now();
      try {
        return await request();
      } finally {
        latency[kind] += performance.now() - started;
      }
    };
    async function request() {
      switch (kind) {
        case 'directory':
        case 'inbox':
          return (await call('GET', `/api/v1/${kind}`, { key: agent.key })).status === 200;
        case 'claim': {
          const res = await call('POST', '/api/v1/inbox/claim', { key: agent.key, body: { limit: 5 } });
          if (res.status === 200 && res.body.claims.length > 0) pendingAcks.push({ agent, claims: res.body.claims });
          return res.status === 200;
        }
        case 'ack': {
          const batch = pendingAcks.shift();
          const acks = batch.claims.map((c) => ({ message_id: c.message.message_id, claim_token: c.claim_token }));
          return (await call('POST', '/api/v1/inbox/ack', { key: batch.agent.key, body: { acks } })).status === 200;
        }
        case 'direct': {
          const targets = new Set();
          const count = 1 + Math.floor(random() * 3);
          while (targets.size < count) {
            const target = pick(agents);
            if (target !== agent) targets.add(target.id);
          }
          const res = await call('POST', '/api/v1/messages/direct', {
            key: agent.key,
            body: { to_agent_ids: [...targets], body: `mix ${n++} ${random()}` },
          });
          for (const result of res.body.results ?? []) if (result.channel_id) agent.channels.add(result.channel_id);
          return res.status === 200 && res.body.results.every((x) => x.status === 'sent');
        }
        case 'group': {
          const res = await call('POST', `/api/v1/groups/${pick(agent.groups)}/messages`, {
            key: agent.key,
            body: { body: `mix ${n++} ${random()}` },
          });
          return res.status === 200 && res.body.status === 'sent';
        }
        default: {
          const channel = pick([...agent.channels]);
          return (
            (await call('GET', `/api/v1/channels/${channel}/messages?limit=20`, { key: agent.key })).status === 200
          );
        }
      }
    }
  };
  op.counts = counts;
  op.latency = latency;
  return op;
}

async function drive({ call, op, counts, latency }, seconds) {
  if (counts) for (const kind of Object.keys(counts)) counts[kind] = latency[kind] = 0;
  let requests = 0;
  let errors = 0;
  const once = async (client) => {
    const spec = op(client);
    // The mix hands back a request of its own making that answers whether it succeeded.
    const ok =
      typeof spec === 'function'
        ? await spec().catch(() => false)
        : await call(spec[0], spec[1], spec[2])
            .then((res) => res.status === spec[3])
            .catch(() => false);
    requests++;
    if (!ok) errors++;
  };
  if (RATE) {
    // Open loop: request i leaves at t0 + i/RATE whatever the earlier ones did, so a faster server
    // does not get more work per request (a closed-loop mix drains inboxes at the server's pace).
    const started = performance.now();
    const inFlight = [];
    for (let i = 0; i < Math.floor(seconds * RATE); i++) {
      const wait = started + (i * 1000) / RATE - performance.now();
      if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
      inFlight.push(once(i % CLIENTS));
    }
    await Promise.all(inFlight);
    return { requests, errors };
  }
  const deadline = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, client) => {
      while (performance.now() < deadline) await once(client);
    }),
  );
  return { requests, errors };
}

// ---------------------------------------------------------------------------------------------
// Reading a profile: self time per function from the samples' time deltas.

const worker = (() => {
  const map = JSON.parse(readFileSync('dist/worker/index.js.map', 'utf8'));
  return new SourceMap(map);
})();

/** Where a function of the Switchboard bundle comes from: "worker/middleware/auth.ts:41". */
function original(frame) {
  const entry = worker.findEntry(frame.lineNumber, frame.columnNumber);
  if (!entry?.originalSource) return null;
  const file = entry.originalSource.replace(/^(\.\.\/)+/, '');
  return { file, line: entry.originalLine + 1, name: entry.name };
}

/** The group a source file belongs to in the summary. */
function fileGroup(file) {
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file);
  // drizzle-orm's own source maps name its files "src/…", which resolve to node_modules/src/.
  if (pkg?.[1] === 'src') return 'npm: drizzle-orm';
  return pkg ? `npm: ${pkg[1]}` : file;
}

function analyse(target, profile) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map();
  let total = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const delta = (profile.timeDeltas[i + 1] ?? 0) / 1000; // µs → ms; delta i+1 closes sample i
    total += delta;
    self.set(profile.samples[i], (self.get(profile.samples[i]) ?? 0) + delta);
  }
  const functions = new Map();
  let idle = 0;
  for (const [id, ms] of self) {
    const frame = byId.get(id).callFrame;
    if (frame.functionName === '(idle)') {
      idle += ms;
      continue;
    }
    const isSwitchboard = target === 'core:user:switchboard' && frame.url && !frame.functionName.startsWith('(');
    const source = isSwitchboard ? original(frame) : null;
    const where = source
      ? `${source.file}:${source.line}`
      : frame.url
        ? `${frame.url.split('/').pop()}:${frame.lineNumber + 1}`
        : '';
    const name = frame.functionName || source?.name || '(anonymous)';
    const key = `${name} ${where}`;
    const entry = functions.get(key) ?? { target, name, where, group: source ? fileGroup(source.file) : null, ms: 0 };
    entry.ms += ms;
    functions.set(key, entry);
  }
  return { target, totalMs: total, idleMs: idle, busyMs: total - idle, functions: [...functions.values()] };
}

// ---------------------------------------------------------------------------------------------

const inspectorPort = await freePort();
const server = await startServer('switchboard-profile-', {
  env: { SWITCHBOARD_INSPECTOR_PORT: String(inspectorPort), SWITCHBOARD_BENCH_HELLO: '1' },
});
const pool = new Pool(server.base, { connections: CLIENTS + 4 });
const sessions = [];
try {
  const load = await prepare(pool);
  // Warm-up, unprofiled: JIT, connections, Durable Objects woken.
  await drive(load, Math.min(3, SECONDS / 2));

  const targets = await (await fetch(`http://127.0.0.1:${inspectorPort}/json/list`)).json();
  for (const target of targets) {
    // Miniflare's per-binding glue workers with "#" in their name (HOST_METRICS) cannot be
    // addressed by URL; they run no Switchboard code.
    if (target.webSocketDebuggerUrl.includes('#')) continue;
    if (values.targets && !values.targets.split(',').some((name) => target.id.includes(name))) continue;
    const session = devtools(target.webSocketDebuggerUrl);
    await session.opened;
    await session.send('Profiler.enable');
    await session.send('Profiler.setSamplingInterval', { interval: Number(values.interval) });
    sessions.push({ id: target.id, session });
  }
  const procs = processTree(server.pid).filter((p) => p.comm === 'workerd');
  const cpuBefore = { workerd: procs.reduce((s, p) => s + cpuMs(p.pid), 0), launcher: cpuMs(server.pid) };
  await Promise.all(sessions.map(({ session }) => session.send('Profiler.start')));
  const { requests, errors } = await drive(load, SECONDS);
  const profiles = await Promise.all(sessions.map(({ session }) => session.send('Profiler.stop')));
  const cpuAfter = { workerd: procs.reduce((s, p) => s + cpuMs(p.pid), 0), launcher: cpuMs(server.pid) };

  mkdirSync(values.out, { recursive: true });
  const analyses = [];
  sessions.forEach(({ id }, i) => {
    const result = analyse(id, profiles[i].profile);
    if (result.busyMs < 1) return; // an isolate this operation never touched
    const file = join(values.out, `${values.op}-${id.replace(/[^A-Za-z0-9._-]+/g, '_')}.cpuprofile`);
    writeFileSync(file, JSON.stringify(profiles[i].profile));
    analyses.push({ ...result, file });
  });
  analyses.sort((a, b) => b.busyMs - a.busyMs);
  const busy = analyses.reduce((s, a) => s + a.busyMs, 0);
  // The sampler is wall-clock based: on a loaded machine it keeps sampling while workerd's thread
  // waits for a core, and an isolate's samples include native work between its turns. So sampled
  // milliseconds are not CPU time; shares of the samples are the signal, and they are converted
  // to CPU by scaling with workerd's CPU per request measured from /proc over the same run.
  const workerdMsPerReq = (cpuAfter.workerd - cpuBefore.workerd) / requests;
  const est = (ms) => ((ms / busy) * workerdMsPerReq).toFixed(3);
  const pct = (ms, of = busy) => `${((100 * ms) / of).toFixed(1)}%`;
  const perReq = (ms) => (ms / requests).toFixed(3);

  const out = [];
  if (load.counts) {
    const kinds = Object.entries(load.counts);
    out.push(`mix realized: ${kinds.map(([k, v]) => `${k} ${v}`).join(', ')}`);
    out.push(`mean ms: ${kinds.map(([k, v]) => `${k} ${(load.latency[k] / Math.max(1, v)).toFixed(1)}`).join(', ')}`);
  }
  out.push(
    `op ${values.op}: ${requests} requests in ${SECONDS} s from ${CLIENTS} clients (${errors} errors); ` +
      `load ${loadAverage().join(' / ')}; ${machine()}`,
    `from /proc (while profiling, which costs CPU itself): workerd ${workerdMsPerReq.toFixed(3)} ms CPU/request, ` +
      `launcher ${perReq(cpuAfter.launcher - cpuBefore.launcher)} ms CPU/request`,
    '"share" is the share of all non-idle samples; "≈ms/req" is that share of workerd\'s CPU per request.',
    '',
    'By isolate (an API request goes straight to the worker over its direct socket; the console and hello pass core:entry). Samples are',
    'wall-clock ticks on one shared thread, so this split is only indicative: the differential /proc figures',
    'of `npm run bench` (hello worker vs unknown API path vs GET /me) are the per-layer costs.',
  );
  for (const a of analyses) {
    out.push(`  ${a.target.padEnd(40)} share ${pct(a.busyMs).padStart(6)}  ≈${est(a.busyMs)} ms/req`);
  }
  out.push(
    '',
    `Top ${TOP} functions by self time (all isolates; names in parentheses and natives are V8/workerd work):`,
  );
  const all = analyses.flatMap((a) => a.functions).sort((a, b) => b.ms - a.ms);
  for (const f of all.slice(0, TOP)) {
    out.push(
      `  ${pct(f.ms).padStart(6)} ≈${est(f.ms)} ms/req  ${f.target.replace('core:user:', '').padEnd(28)} ${f.name.slice(0, 36).padEnd(36)} ${f.where}`,
    );
  }
  const sb = analyses.find((a) => a.target === 'core:user:switchboard');
  const groups = new Map();
  if (sb) {
    for (const f of sb.functions) {
      const group = f.group ?? f.name; // (program), (garbage collector), natives
      groups.set(group, (groups.get(group) ?? 0) + f.ms);
    }
    out.push('', 'Switchboard isolate (worker and Durable Objects), self time by source file (share of that isolate):');
    for (const [group, ms] of [...groups].sort((a, b) => b[1] - a[1]).slice(0, TOP)) {
      out.push(`  ${pct(ms, sb.busyMs).padStart(6)} ≈${est(ms)} ms/req  ${group}`);
    }
  }
  out.push('', `profiles: ${analyses.map((a) => a.file).join(', ')}`);
  console.log(out.join('\n'));
  if (values.json) {
    writeFileSync(
      values.json,
      `${JSON.stringify(
        {
          op: values.op,
          ...(load.counts && { mix: load.counts }),
          requests,
          errors,
          seconds: SECONDS,
          clients: CLIENTS,
          load: loadAverage(),
          procCpuMsPerRequest: {
            workerd: (cpuAfter.workerd - cpuBefore.workerd) / requests,
            launcher: (cpuAfter.launcher - cpuBefore.launcher) / requests,
          },
          isolates: analyses.map((a) => ({ target: a.target, share: a.busyMs / busy })),
          top: all.slice(0, TOP).map((f) => ({ ...f, share: f.ms / busy, estMsPerRequest: Number(est(f.ms)) })),
          switchboardByFile: [...groups].map(([group, ms]) => ({
            group,
            share: ms / busy,
            estMsPerRequest: Number(est(ms)),
          })),
        },
        null,
        2,
      )}\n`,
    );
  }
} finally {
  for (const { session } of sessions) session.close();
  await pool.close().catch(() => {});
  await server.stop();
}
