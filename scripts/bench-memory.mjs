// The idle-memory phase of `npm run bench` (also `node scripts/bench.mjs --phase memory`): a
// server of its own, started as `npm start` runs it (no bench hello worker, no aid), on a fresh
// data dir. It reads each process's resident (VmRSS) and proportional (PSS, /proc/<pid>/smaps_rollup:
// pages shared with other processes, such as the node and workerd binaries' code when another
// Node or workerd runs on the machine, count in part) memory at the ready line, after the set-up
// (the administrator signed in, a host, four agents, three messages) and after idling; then the
// growth with stored data: messages sent in batches into private channels (at most
// max_messages_per_channel each), a few attachments, a reading after each step and after idling.
import { readFileSync } from 'node:fs';
import { ADMIN_PASSWORD, processTree, sleep, startServer } from './bench-kit.mjs';

const round = (n) => Number(n.toFixed(1));
/** Messages a private channel keeps by default (core/lib/limits.ts max_messages_per_channel). */
const CHANNEL_CAP = 1_000;

function kb(pid, file, field) {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/${file}`, 'utf8'));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

/** Every process of the server's tree now: RSS and PSS in MB (MiB), per process and summed. */
export function memoryReading(launcherPid) {
  const processes = processTree(launcherPid).map((p) => ({
    comm: p.comm,
    rssMb: round(kb(p.pid, 'status', 'VmRSS') / 1024),
    pssMb: round(kb(p.pid, 'smaps_rollup', 'Pss') / 1024),
  }));
  return {
    rssMb: round(processes.reduce((sum, p) => sum + p.rssMb, 0)),
    pssMb: round(processes.reduce((sum, p) => sum + p.pssMb, 0)),
    processes,
  };
}

/** "launcher 118.1, workerd 106.0, sh 1.6" (RSS). */
export function perProcess(reading) {
  return reading.processes.map((p, i) => `${i === 0 ? 'launcher' : p.comm} ${p.rssMb}`).join(', ');
}

function jsonClient(api) {
  return async (method, path, { key, cookie, body, raw, headers = {} } = {}) => {
    const res = await fetch(api + path, {
      method,
      headers: {
        ...headers,
        ...(key && { authorization: `Bearer ${key}` }),
        ...(cookie && { cookie }),
        ...(body !== undefined && { 'content-type': 'application/json' }),
      },
      body: raw ?? (body === undefined ? undefined : JSON.stringify(body)),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
    return { body: text ? JSON.parse(text) : null, headers: res.headers };
  };
}

/** A multipart send of `bytes` bytes from one agent to another. */
function attachment(to, bytes) {
  const boundary = `bench-memory-${Date.now()}`;
  const raw = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="metadata"\r\n\r\n` +
        JSON.stringify({ to_agent_ids: [to], body: 'attachment' }) +
        `\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="bench.bin"\r\n` +
        'Content-Type: application/octet-stream\r\n\r\n',
    ),
    Buffer.alloc(bytes, 7),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { raw, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

/**
 * `idleSeconds` between the set-up and the idle reading (and after each stored-data step);
 * `messages` the cumulative totals to store (e.g. [10_000, 50_000]; [] skips the growth part).
 */
export async function memoryRun({ log, idleSeconds = 30, messages = [2_000, 10_000], attachments = 20 }) {
  const server = await startServer('switchboard-bench-memory-');
  try {
    const ready = memoryReading(server.pid);
    const call = jsonClient(server.api);
    const login = await call('POST', '/admin/login', { body: { username: 'admin', password: ADMIN_PASSWORD } });
    const cookie = login.headers.get('set-cookie').split(';')[0];
    const { host } = (
      await call('POST', '/admin/hosts', { cookie, body: { name: 'memory', addresses: ['127.0.0.1'] } })
    ).body;
    // Enough agents that the largest total fits in private channels below their cap.
    const pairsNeeded = Math.ceil(Math.max(0, ...messages) / CHANNEL_CAP);
    let count = 4;
    while ((count * (count - 1)) / 2 < pairsNeeded) count += 1;
    const agents = [];
    for (let i = 0; i < count; i++) {
      const created = (
        await call('POST', '/admin/agents', { cookie, body: { name: `memory-${i}`, host_id: host.host_id } })
      ).body;
      agents.push({ id: created.agent.agent_id, key: created.api_key });
    }
    for (let i = 0; i < 3; i++) {
      await call('POST', '/messages/direct', {
        key: agents[i].key,
        body: { to_agent_ids: [agents[i + 1].id], body: `hello ${i}` },
      });
    }
    await call('GET', '/me', { key: agents[0].key });
    const setUp = memoryReading(server.pid);
    await sleep(idleSeconds * 1000);
    const idle = memoryReading(server.pid);
    log(
      `idle memory: ready ${ready.rssMb} MB, after set-up ${setUp.rssMb} MB, after ${idleSeconds} s idle ${idle.rssMb} MB RSS (${perProcess(idle)}), PSS ${idle.pssMb} MB`,
    );

    const pairs = [];
    for (let i = 0; i < agents.length && pairs.length < pairsNeeded; i++) {
      for (let j = i + 1; j < agents.length && pairs.length < pairsNeeded; j++) pairs.push([agents[i], agents[j]]);
    }
    const growth = [];
    let stored = 3;
    let next = 0;
    for (const total of messages) {
      const started = performance.now();
      const target = total;
      // 16 senders at a time, each taking the next message number; message n goes to pair
      // n mod pairs, so concurrent sends reach different channels (each a Durable Object).
      const send = async () => {
        for (;;) {
          const n = next++;
          if (n >= target) return;
          const [from, to] = pairs[n % pairs.length];
          await call('POST', '/messages/direct', {
            key: from.key,
            body: { to_agent_ids: [to.id], body: `stored message ${n}: ${'x'.repeat(100)}` },
          });
        }
      };
      await Promise.all(Array.from({ length: 16 }, send));
      next = target;
      stored = target;
      const after = memoryReading(server.pid);
      await sleep(idleSeconds * 1000);
      const idled = memoryReading(server.pid);
      const seconds = round((performance.now() - started) / 1000);
      growth.push({ messages: stored, channels: Math.min(pairs.length, stored), after, idle: idled, seconds });
      log(
        `stored ${stored} messages: ${after.rssMb} MB RSS right after, ${idled.rssMb} MB after ${idleSeconds} s idle (${perProcess(idled)})`,
      );
    }
    let withFiles = null;
    if (attachments > 0 && messages.length > 0) {
      for (let i = 0; i < attachments; i++) {
        const { raw, headers } = attachment(agents[1].id, 1_000_000);
        await call('POST', '/messages/direct', { key: agents[0].key, raw, headers });
      }
      const after = memoryReading(server.pid);
      await sleep(idleSeconds * 1000);
      withFiles = { files: attachments, bytes: attachments * 1_000_000, after, idle: memoryReading(server.pid) };
      log(
        `${attachments} × 1 MB attachments: ${after.rssMb} MB RSS right after, ${withFiles.idle.rssMb} MB after ${idleSeconds} s idle (${perProcess(withFiles.idle)})`,
      );
    }
    return { idleSeconds, ready, setUp, idle, growth, withFiles };
  } finally {
    await server.stop();
  }
}
