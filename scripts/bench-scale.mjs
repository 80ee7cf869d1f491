// The scale phases of `npm run bench` (issue 12), on a server of their own (the cleanup phase
// lowers a global limit, which must not reach the other phases):
//
//   1. inbox: an agent in 500 channels (499 idle, one with waiting messages) against an agent in
//      one channel: GET /inbox and POST /inbox/claim latency and server CPU per request, the two
//      agents interleaved so that load from elsewhere hits both alike;
//   2. cleanup: 100 channels holding 100,000 messages (some with files) in all, then the message
//      cap is lowered: the time until GET /admin/cleanup reports the run complete, its progress
//      while it runs, and afterwards what is still readable and what R2 still holds.
//
// `--quick` keeps both phases but tiny (20 channels, 400 messages) and checks completion and
// correctness, never speed. Run alone: node scripts/bench-scale.mjs [--quick] [--phase inbox|cleanup]
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { Miniflare } from 'miniflare';
import { Pool } from 'undici';
import { ADMIN_PASSWORD, cpuMs, loadAverage, processTree, sleep, startServer } from './bench-kit.mjs';
import { uploadMemory } from './bench-upload.mjs';
import { uploadFloor } from './bench-upload-floor.mjs';

export const SCALE_PLANS = {
  quick: {
    inbox: { channels: 20, waiting: 40, rounds: 2, batch: 10, clients: 2 },
    cleanup: { channels: 20, perChannel: 20, fileEvery: 5, fileBytes: 2_048, cap: 5, deadlineS: 120 },
  },
  full: {
    inbox: { channels: 500, waiting: 600, rounds: 5, batch: 100, clients: 4 },
    cleanup: { channels: 100, perChannel: 1_000, fileEvery: 100, fileBytes: 16_384, cap: 100, deadlineS: 600 },
  },
};
/** Target 1: the 500-channel agent within this factor of the one-channel agent. */
export const INBOX_FACTOR = 1.5;
/** Target 2: the retroactive cleanup completes within this many seconds. */
export const CLEANUP_SECONDS = 60;

const round = (n, digits = 1) => (Number.isFinite(n) ? Number(n.toFixed(digits)) : n);
function percentile(sorted, p) {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] : 0;
}

function httpClient(base) {
  const pool = new Pool(base, { connections: 64 });
  async function api(method, path, { key, cookie, body, raw, headers = {} } = {}) {
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
      path: `/api/v1${path}`,
      headers: h,
      body: payload,
      headersTimeout: 60_000,
      bodyTimeout: 60_000,
    });
    const text = await res.body.text();
    const json = text && String(res.headers['content-type'] ?? '').includes('json') ? JSON.parse(text) : null;
    return { status: res.statusCode, body: json, headers: res.headers };
  }
  async function must(status, promise, what) {
    const res = await promise;
    if (res.status !== status) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body).slice(0, 400)}`);
    return res.body;
  }
  return { api, must, close: () => pool.close() };
}

/** Runs `fn` over `items` with at most `concurrency` in flight. */
async function inParallel(items, concurrency, fn) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        await fn(items[i], i);
      }
    }),
  );
}

async function adminSetUp({ api, must }) {
  const login = async () => {
    const res = await api('POST', '/admin/login', { body: { username: 'admin', password: ADMIN_PASSWORD } });
    return String(res.headers['set-cookie']).split(';')[0];
  };
  const cookie = await login();
  const { host } = await must(
    201,
    api('POST', '/admin/hosts', { cookie, body: { name: 'bench-scale', addresses: ['127.0.0.1'] } }),
    'create host',
  );
  const createAgents = async (count, prefix) => {
    const agents = new Array(count);
    await inParallel([...Array(count).keys()], 8, async (i) => {
      const created = await must(
        201,
        api('POST', '/admin/agents', { cookie, body: { name: `${prefix}-${i}`, host_id: host.host_id } }),
        'create agent',
      );
      agents[i] = { id: created.agent.agent_id, key: created.api_key };
    });
    return agents;
  };
  return { cookie, login, createAgents };
}

// ---------------------------------------------------------------------------------------------
// Phase 1: the inbox of an agent in many channels.

/** Claims and ACKs everything the agent has, then polls once: every hint of a drained channel is cleared. */
async function drain({ api, must }, agent) {
  for (;;) {
    const { claims } = await must(200, api('POST', '/inbox/claim', { key: agent.key, body: { limit: 100 } }), 'claim');
    if (claims.length === 0) break;
    const acks = claims.map((c) => ({ message_id: c.message.message_id, claim_token: c.claim_token }));
    await must(200, api('POST', '/inbox/ack', { key: agent.key, body: { acks } }), 'ack');
  }
  return must(200, api('GET', '/inbox', { key: agent.key }), 'inbox');
}

export async function inboxPhase(http, setup, workerdPids, plan) {
  const { api, must } = http;
  const started = performance.now();
  const [many, one] = await setup.createAgents(2, 'inbox-subject');
  const peers = await setup.createAgents(plan.channels, 'inbox-peer');
  // Every peer writes once to `many` (one channel each); peers[0] also to `one`, its only channel.
  await inParallel(peers, 8, async (peer, i) => {
    const to = i === 0 ? [many.id, one.id] : [many.id];
    const sent = await must(
      200,
      api('POST', '/messages/direct', { key: peer.key, body: { to_agent_ids: to, body: `first ${i}` } }),
      'seed',
    );
    if (sent.results.some((r) => r.status !== 'sent')) throw new Error(`seed: ${JSON.stringify(sent.results)}`);
  });
  const checks = [];
  const check = (ok, what) => {
    if (!ok) checks.push(what);
  };
  for (const agent of [many, one]) {
    const left = await drain(http, agent);
    check(left.unread === 0, `drained inbox still counts ${left.unread}`);
  }
  const listed = await must(200, api('GET', '/channels', { key: many.key }), 'channels');
  check(listed.channels.length === plan.channels, `GET /channels lists ${listed.channels.length} of ${plan.channels}`);
  // The waiting messages, in the one channel both agents share with peers[0].
  await inParallel([...Array(plan.waiting).keys()], 8, async (i) => {
    await must(
      200,
      api('POST', '/messages/direct', {
        key: peers[0].key,
        body: { to_agent_ids: [many.id, one.id], body: `wait ${i}` },
      }),
      'waiting',
    );
  });
  const setupMs = performance.now() - started;
  for (const agent of [many, one]) {
    const inbox = await must(200, api('GET', '/inbox', { key: agent.key }), 'inbox');
    check(
      inbox.unread === plan.waiting && inbox.claimable === plan.waiting && inbox.channels.length === 1,
      `inbox before: ${JSON.stringify({ ...inbox, channels: inbox.channels.length })}`,
    );
  }

  // Interleaved batches: the order flips every round so neither agent always runs first.
  const subjects = { one, many };
  const figures = {};
  const claimed = { one: new Set(), many: new Set() };
  let errors = 0;
  for (const op of ['inbox', 'claim']) {
    for (let r = 0; r < plan.rounds; r++) {
      for (const name of r % 2 ? ['many', 'one'] : ['one', 'many']) {
        const agent = subjects[name];
        figures[`${op} ${name}`] ??= { latencies: [], workerdMs: 0, requests: 0 };
        const entry = figures[`${op} ${name}`];
        const before = workerdPids.reduce((s, pid) => s + cpuMs(pid), 0);
        let issued = 0;
        await Promise.all(
          Array.from({ length: plan.clients }, async () => {
            while (issued < plan.batch) {
              issued++;
              const t = performance.now();
              const res =
                op === 'inbox'
                  ? await api('GET', '/inbox', { key: agent.key })
                  : await api('POST', '/inbox/claim', { key: agent.key, body: { limit: 1 } });
              entry.latencies.push(performance.now() - t);
              if (res.status !== 200) errors++;
              else if (op === 'inbox' && res.body.unread !== plan.waiting) errors++;
              else if (op === 'claim') {
                if (res.body.claims.length !== 1) errors++;
                for (const c of res.body.claims) claimed[name].add(c.message.message_id);
              }
            }
          }),
        );
        entry.workerdMs += workerdPids.reduce((s, pid) => s + cpuMs(pid), 0) - before;
        entry.requests += issued;
      }
    }
  }
  // Claims are exclusive and nothing was lost: every claim got a different message, and the
  // inbox counts exactly the claimed ones as leased.
  for (const [name, agent] of Object.entries(subjects)) {
    const expected = plan.rounds * plan.batch;
    check(claimed[name].size === expected, `${name}: ${claimed[name].size} distinct claims of ${expected}`);
    const inbox = await must(200, api('GET', '/inbox', { key: agent.key }), 'inbox');
    check(
      inbox.unread === plan.waiting && inbox.leased === expected,
      `${name} after: unread ${inbox.unread}, leased ${inbox.leased}`,
    );
  }
  const rows = Object.entries(figures).map(([label, f]) => {
    const sorted = f.latencies.sort((a, b) => a - b);
    return {
      label,
      requests: f.requests,
      p50: round(percentile(sorted, 50), 2),
      p90: round(percentile(sorted, 90), 2),
      p99: round(percentile(sorted, 99), 2),
      workerdCpuMs: round(f.workerdMs / f.requests, 3),
    };
  });
  const row = (label) => rows.find((x) => x.label === label);
  const ratios = {};
  for (const op of ['inbox', 'claim']) {
    const [a, b] = [row(`${op} many`), row(`${op} one`)];
    ratios[op] = {
      p50: round(a.p50 / b.p50, 2),
      p99: round(a.p99 / b.p99, 2),
      cpu: round(a.workerdCpuMs / b.workerdCpuMs, 2),
    };
  }
  const met = Object.values(ratios).every((r) => r.p50 <= INBOX_FACTOR && r.cpu <= INBOX_FACTOR);
  return { plan, setupMs: Math.round(setupMs), rows, ratios, met, errors, problems: checks };
}

// ---------------------------------------------------------------------------------------------
// Phase 2: lowering the message cap on many full channels.

function multipart(metadata, bytes) {
  const boundary = `scale-${Math.random().toString(36).slice(2)}`;
  return {
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    raw: Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="metadata"\r\n\r\n${JSON.stringify(metadata)}\r\n` +
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="f.bin"\r\n` +
          'Content-Type: application/octet-stream\r\n\r\n',
      ),
      bytes,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]),
  };
}

/** The keys R2 holds, listed with Miniflare's own API from a stopped server's data dir. */
async function r2Keys(dataDir) {
  const mf = new Miniflare({
    modules: true,
    script: 'export default { fetch() { return new Response(null, { status: 404 }); } }',
    cf: false,
    r2Buckets: { FILES: 'switchboard-files' },
    r2Persist: join(dataDir, 'state', 'r2'),
  });
  try {
    const bucket = await mf.getR2Bucket('FILES');
    const keys = [];
    let cursor;
    do {
      const page = await bucket.list({ cursor, limit: 1000 });
      for (const object of page.objects) keys.push(object.key);
      cursor = page.truncated ? page.cursor : undefined;
    } while (cursor);
    return keys;
  } finally {
    await mf.dispose();
  }
}

export async function cleanupPhase(http, setup, plan, log) {
  const { api, must } = http;
  const [sender, ...recipients] = await setup.createAgents(plan.channels + 1, 'cleanup');
  const channelIds = new Array(recipients.length);
  const fileRounds = [];
  // Rounds run in order: a round with files is a barrier, so every channel's files sit at the same
  // positions and the files the lowered cap removes are known exactly. Text rounds go in windows
  // of a few (their order within a window does not matter), each a send to up to 50 channels.
  const seedStarted = performance.now();
  let round_ = 0;
  while (round_ < plan.perChannel) {
    if (round_ % plan.fileEvery === 0) {
      const r = round_;
      fileRounds.push(r);
      await inParallel(recipients, 8, async (to, i) => {
        const bytes = Buffer.alloc(plan.fileBytes, (r + i) % 251);
        bytes.write(`${r} ${i}`);
        // From the recipient's side (the same channel): an agent may stage only 2 uploads at once.
        const sent = await must(
          200,
          api('POST', '/messages/direct', {
            key: to.key,
            ...multipart({ to_agent_ids: [sender.id], body: `file ${r}` }, bytes),
          }),
          'file send',
        );
        if (sent.results[0].status !== 'sent') throw new Error(`file send: ${JSON.stringify(sent.results)}`);
        channelIds[i] = sent.results[0].channel_id;
      });
      round_++;
      continue;
    }
    const window = [];
    while (round_ < plan.perChannel && round_ % plan.fileEvery !== 0 && window.length < 4) window.push(round_++);
    const requests = window.flatMap((r) => {
      const chunks = [];
      for (let i = 0; i < recipients.length; i += 50) chunks.push({ r, targets: recipients.slice(i, i + 50) });
      return chunks;
    });
    await inParallel(requests, 4, async ({ r, targets }) => {
      const sent = await must(
        200,
        api('POST', '/messages/direct', {
          key: sender.key,
          body: { to_agent_ids: targets.map((t) => t.id), body: `message ${r}` },
        }),
        'send',
      );
      const unsent = sent.results.filter((x) => x.status !== 'sent');
      if (unsent.length) throw new Error(`send: ${JSON.stringify(unsent[0])}`);
    });
    if (round_ % 100 === 0) log?.(`  seeded ${round_}/${plan.perChannel} rounds`);
  }
  const seedMs = performance.now() - seedStarted;
  const messages = plan.channels * plan.perChannel;
  const files = plan.channels * fileRounds.length;
  // Files the cap keeps: those among the newest `cap` positions of each channel.
  const keptFilesPerChannel = fileRounds.filter((r) => r >= plan.perChannel - plan.cap).length;

  // Seeding the full plan outlasts an administrator session: sign in again.
  const cookie = await setup.login();
  const before = await must(200, api('GET', '/admin/cleanup', { cookie }), 'cleanup status');
  const started = performance.now();
  const startedIso = new Date().toISOString();
  await must(
    200,
    api('PATCH', '/admin/settings', { cookie, body: { max_messages_per_channel: plan.cap } }),
    'lower the cap',
  );
  const samples = [];
  let done = false;
  while (performance.now() - started < plan.deadlineS * 1000) {
    const status = await must(200, api('GET', '/admin/cleanup', { cookie }), 'cleanup status');
    samples.push({ ms: Math.round(performance.now() - started), ...status });
    if (status.state === 'idle' && status.last_completed_at && status.last_completed_at >= startedIso) {
      done = true;
      break;
    }
    await sleep(100);
  }
  const completedMs = done ? samples.at(-1).ms : null;
  const running = samples.filter((s) => s.state === 'running');
  const partial = running.filter((s) => s.channels_done > 0 && s.channels_done < s.channels_total);
  // Nothing beyond the cap is readable: every channel answers exactly `cap` messages.
  let overCap = 0;
  await inParallel(channelIds, 8, async (id) => {
    const page = await must(200, api('GET', `/channels/${id}/messages?limit=200`, { key: sender.key }), 'history');
    if (page.messages.length !== plan.cap) overCap++;
  });
  return {
    plan,
    messages,
    files,
    seedMs: Math.round(seedMs),
    seedMessagesPerSecond: round(messages / (seedMs / 1000), 0),
    statusBefore: before.state,
    completedMs,
    samples: samples.length,
    runningSamples: running.length,
    partialSamples: partial.length,
    progress: samples.map((s) => [s.ms, s.state, s.channels_done, s.channels_total, s.pending_jobs]),
    channelsNotAtCap: overCap,
    expectedR2Objects: plan.channels * keptFilesPerChannel,
    met: done && completedMs < CLEANUP_SECONDS * 1000,
  };
}

// ---------------------------------------------------------------------------------------------

/** Both phases (or `only` one) on a fresh server; answers their figures and any problem found. */
export async function scaleRun({ quick, only, log, perChannel }) {
  const plans = structuredClone(quick ? SCALE_PLANS.quick : SCALE_PLANS.full);
  if (perChannel) Object.assign(plans.cleanup, { perChannel, cap: perChannel / 10, fileEvery: perChannel / 10 });
  const server = await startServer('switchboard-bench-scale-');
  const http = httpClient(server.base);
  const workerdPids = processTree(server.pid)
    .filter((p) => p.comm === 'workerd')
    .map((p) => p.pid);
  const out = { load: { atStart: loadAverage() }, problems: [] };
  let keep = false;
  try {
    const setup = await adminSetUp(http);
    if (!only || only === 'inbox') {
      out.inbox = await inboxPhase(http, setup, workerdPids, plans.inbox);
      const { ratios } = out.inbox;
      log?.(
        `inbox, ${plans.inbox.channels} channels vs 1: GET /inbox p50 ×${ratios.inbox.p50} CPU ×${ratios.inbox.cpu}, ` +
          `claim p50 ×${ratios.claim.p50} CPU ×${ratios.claim.cpu}, errors ${out.inbox.errors}`,
      );
      if (out.inbox.errors) out.problems.push(`inbox: ${out.inbox.errors} errors`);
      out.problems.push(...out.inbox.problems.map((p) => `inbox: ${p}`));
    }
    if (only === 'upload') {
      // Investigation only (`npm run bench` measures the upload in its own phase): per process.
      const [from, to] = await setup.createAgents(2, 'upload');
      out.upload = await uploadMemory(http.api, [from, to], server.pid, quick ? 5_000_000 : 50_000_000);
      for (const u of [out.upload, out.upload.again]) {
        log?.(`upload: sum +${u.riseMb} MB; ${u.processes.map((p) => `${p.comm} +${p.riseMb}`).join(', ')}`);
      }
      out.upload.floor = await uploadFloor(out.upload.bytes);
      const { put, putAndCopy } = out.upload.floor;
      log?.(
        `floor, a bare worker in the same Miniflare: R2 put workerd +${put.riseMb}, put and one copy +${putAndCopy.riseMb}`,
      );
    }
    if (!only || only === 'cleanup') {
      out.cleanup = await cleanupPhase(http, setup, plans.cleanup, log);
      const c = out.cleanup;
      log?.(
        `cleanup, ${c.messages} messages (${c.files} files) in ${plans.cleanup.channels} channels, seeded in ${c.seedMs} ms: ` +
          `completed in ${c.completedMs ?? 'not'} ms, ${c.runningSamples}/${c.samples} samples running`,
      );
      if (c.completedMs === null) out.problems.push(`cleanup did not complete within ${plans.cleanup.deadlineS} s`);
      if (c.channelsNotAtCap) out.problems.push(`cleanup: ${c.channelsNotAtCap} channels not at the cap`);
      if (c.runningSamples === 0) out.problems.push('cleanup: no progress seen while running');
      keep = true;
    }
  } catch (error) {
    out.problems.push(`a scale phase threw: ${error.stack ?? error}`);
  } finally {
    await http.close().catch(() => {});
    await server.stop({ keepData: true });
  }
  try {
    if (keep) {
      out.cleanup.r2Objects = (await r2Keys(server.dataDir)).length;
      if (out.cleanup.r2Objects !== out.cleanup.expectedR2Objects)
        out.problems.push(
          `cleanup: R2 holds ${out.cleanup.r2Objects} objects, ${out.cleanup.expectedR2Objects} expected`,
        );
    }
  } finally {
    rmSync(server.dataDir, { recursive: true, force: true });
  }
  out.load.atEnd = loadAverage();
  return out;
}

/** The docs/benchmarks.md section for the scale phases. */
export function scaleReport(s) {
  const parts = [];
  if (s.inbox) {
    const i = s.inbox;
    const rows = i.rows
      .map((r) => `| ${r.label} | ${r.requests} | ${r.p50} | ${r.p90} | ${r.p99} | ${r.workerdCpuMs} |`)
      .join('\n');
    parts.push(`### An agent in ${i.plan.channels} channels: inbox and claim

Two agents: one in ${i.plan.channels} private channels (${i.plan.channels - 1} idle, every message in them
claimed and ACKed, and one channel with ${i.plan.waiting} waiting messages), one in a single channel with
the same ${i.plan.waiting} waiting messages (set up in ${i.setupMs} ms). \`GET /inbox\`, then
\`POST /inbox/claim\` (limit 1, each claim takes a new message), ${i.plan.clients} closed-loop clients, in
${i.plan.rounds} rounds of ${i.plan.batch} requests per agent, the agents interleaved (order flipped each round).
Latency at the client; workerd CPU from \`/proc/<pid>/stat\` over each batch, per request. Checked: every
claim got a different message, the inbox counts stayed exact (${i.errors} errors).

| Agent, operation | Requests | p50 ms | p90 ms | p99 ms | workerd CPU ms/req |
|---|---|---|---|---|---|
${rows}

${i.plan.channels} channels against one: \`GET /inbox\` p50 ×${i.ratios.inbox.p50}, p99 ×${i.ratios.inbox.p99}, CPU ×${i.ratios.inbox.cpu};
\`POST /inbox/claim\` p50 ×${i.ratios.claim.p50}, p99 ×${i.ratios.claim.p99}, CPU ×${i.ratios.claim.cpu}.
**Target (within ×${INBOX_FACTOR} on p50 and CPU): ${i.met ? 'met' : 'not met'}.**`);
  }
  if (s.cleanup) {
    const c = s.cleanup;
    const shown = c.progress.filter(
      (_, k) => k % Math.max(1, Math.ceil(c.progress.length / 12)) === 0 || k === c.progress.length - 1,
    );
    const rows = shown
      .map(([ms, state, done, total, pending]) => `| ${ms} | ${state} | ${done} / ${total} | ${pending} |`)
      .join('\n');
    parts.push(`### Lowering the message cap on ${c.plan.channels} channels

${c.plan.channels} private channels with ${c.plan.perChannel} messages each (${c.messages} in all), ${c.files} of them with a
${c.plan.fileBytes}-byte file (one message in ${c.plan.fileEvery} per channel), seeded through the real API in
${c.seedMs} ms (${c.seedMessagesPerSecond} messages/s: direct sends to 50 channels per request, files one upload each).
Then \`PATCH /admin/settings\` lowers \`max_messages_per_channel\` to ${c.plan.cap} and \`GET /admin/cleanup\` is polled
every 100 ms until the run reports complete: **${c.completedMs === null ? `not complete within ${c.plan.deadlineS} s` : `${c.completedMs} ms`}**
(target < ${CLEANUP_SECONDS} s: ${c.met ? 'met' : 'not met'}). ${c.runningSamples} of ${c.samples} polls saw the run
\`running\`, ${c.partialSamples} of them part-way (0 < channels_done < total). Afterwards every channel answered
exactly ${c.plan.cap} messages (${c.channelsNotAtCap} did not), and R2 held ${c.r2Objects ?? '–'} objects, the
${c.expectedR2Objects} files of the retained messages (counted from the stopped server's data dir with Miniflare's API).

| ms after the change | state | channels done | pending deletion jobs |
|---|---|---|---|
${rows}`);
  }
  return parts.join('\n\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      phase: { type: 'string' },
      json: { type: 'string' },
      // A smaller cleanup plan for a loaded machine: messages per channel (the cap stays a tenth).
      'per-channel': { type: 'string' },
    },
  });
  const out = await scaleRun({
    quick: values.quick,
    only: values.phase,
    perChannel: values['per-channel'] ? Number(values['per-channel']) : undefined,
    log: (t) => process.stdout.write(`${t}\n`),
  });
  const text = JSON.stringify(out, null, 2);
  if (values.json) (await import('node:fs')).writeFileSync(values.json, `${text}\n`);
  else
    process.stdout.write(
      `${JSON.stringify({ ...out, cleanup: out.cleanup && { ...out.cleanup, progress: out.cleanup.progress.length } }, null, 2)}\n`,
    );
  if (out.problems.length) process.exitCode = 1;
}
