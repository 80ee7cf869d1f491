/**
 * The fault run: concurrent agents send (direct and group, with and without a file), claim and ACK
 * against the real launcher while the whole server (workerd, then the launcher) is SIGKILLed at
 * random moments and restarted on the same data directory. Every request and its answer is
 * recorded with client timestamps; after the last round the inboxes are drained, the cleanup is
 * waited for, the server is stopped and a checker in the spirit of Jepsen's total-queue counts the
 * anomalies. Retention is set far above what a run sends, so nothing is legitimately evicted
 * (any `message_purged` answer would be counted too).
 *
 * Time reasoning is causal or on the server's own clock: a claim's lease is
 * [claim_expires_at - claim_seconds, claim_expires_at) in server time (both ends come from the
 * same server `now`), and an ACK "sent after X" uses the client clock of the same machine, taken
 * before the request left, so the server's `now` for it is never earlier.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Miniflare, Response as MiniflareResponse, type WorkerOptions } from 'miniflare';
import { childPids } from '../../server/orphan-guard.js';
import { adminLogin, api, createAgent, createHost, ROOT, type Server, startServer, tempDir } from '../e2e/harness.js';
import { storedObjects } from '../e2e/r2-objects.js';

export interface FaultOptions {
  rounds: number;
  /** Each round's crash comes at a random moment between 30 % and 100 % of this. */
  roundMs: number;
  agents: number;
  seed: number;
  log?: (line: string) => void;
}

const CLAIM_SECONDS = 1;
const CLAIM_MS = CLAIM_SECONDS * 1000;

interface Agent {
  id: string;
  key: string;
}

export interface SendRecord {
  op: number;
  kind: 'direct' | 'group';
  from: string;
  body: string;
  /** Direct: the addressed agents; group: every other member. */
  recipients: string[];
  file: boolean;
  /** 'acked': a 2xx answer; 'failed': another answer; 'unknown': no answer (crash). */
  outcome: 'acked' | 'failed' | 'unknown';
  /** The (message, recipient) pairs a 2xx answer promised. */
  promised: { messageId: string; recipient: string }[];
  duplicateAnswers: number;
}

export interface ClaimRecord {
  agent: string;
  messageId: string;
  body: string;
  token: string;
  leaseStart: number;
  leaseEnd: number;
  sentAt: number;
  answeredAt: number;
}

export interface AckRecord {
  agent: string;
  messageId: string;
  token: string;
  sentAt: number;
  answeredAt: number;
  status: string;
}

export interface FaultSummary {
  rounds: number;
  crashes: number;
  sends: { attempted: number; acked: number; failed: number; unknown: number; withFile: number };
  promisedDeliveries: number;
  claims: number;
  acks: { read: number; alreadyRead: number; rejected: number; unknown: number };
  pendingCopiesAfterCrash: number;
  liveAttachments: number;
  storedObjects: number;
  violations: {
    lostAckedSends: number;
    duplicateDeliveries: number;
    doubleLeases: number;
    staleTokenAcksAccepted: number;
    redeliveredAfterAck: number;
    orphanObjects: number;
    attachmentsWithoutObject: number;
    unexplainedPendingCopies: number;
    phantomDeliveries: number;
    purgedAnswers: number;
  };
  /** The first few examples of each violation, for the report. */
  examples: string[];
}

/** A small seeded generator (mulberry32), so a run's choices can be replayed with its seed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A private channel's ID as core/domain/ids.ts derives it (every pair is inspected, seen or not). */
function dmChannelId(a: string, b: string): string {
  const [first, second] = a < b ? [a, b] : [b, a];
  return `dm_${createHash('sha256').update(`${first}\n${second}`).digest('base64url').slice(0, 22)}`;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function multipart(metadata: unknown, filename: string, content: Buffer): { body: Buffer; type: string } {
  const boundary = `fault-${createHash('sha256').update(content).digest('hex').slice(0, 16)}`;
  const head =
    `--${boundary}\r\nContent-Disposition: form-data; name="metadata"\r\nContent-Type: application/json\r\n\r\n` +
    `${JSON.stringify(metadata)}\r\n--${boundary}\r\n` +
    `Content-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: text/plain\r\n\r\n`;
  return {
    body: Buffer.concat([Buffer.from(head), content, Buffer.from(`\r\n--${boundary}--\r\n`)]),
    type: `multipart/form-data; boundary=${boundary}`,
  };
}

/** The whole server dies at once: workerd first (so nothing in it sees a client go), then the launcher. */
async function crash(server: Server): Promise<void> {
  for (const pid of childPids(server.pid, 'workerd')) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  await server.kill();
}

export async function runFaults(options: FaultOptions): Promise<FaultSummary> {
  const log = options.log ?? (() => {});
  const rand = random(options.seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)]!;
  const dataDir = tempDir('switchboard-faults-');

  // Set-up, without faults: accounts, one group everybody joined, limits that evict nothing.
  let server = await startServer({ dataDir });
  const cookie = await adminLogin(server);
  const settings = await api(server, 'PATCH', '/admin/settings', {
    cookie,
    body: { claim_seconds: CLAIM_SECONDS, max_messages_per_channel: 1_000_000, max_files_per_channel: 1_000_000 },
  });
  if (settings.status !== 200) throw new Error(`settings: ${settings.status} ${settings.text}`);
  const host = await createHost(server, cookie, ['127.0.0.1']);
  const agents: Agent[] = [];
  for (let i = 0; i < options.agents; i++) {
    const { agent, key } = await createAgent(server, cookie, host.host_id, `fault-${i}`);
    agents.push({ id: agent.agent_id, key });
  }
  const [owner, ...others] = agents as [Agent, ...Agent[]];
  const created = await api(server, 'POST', '/groups', {
    key: owner.key,
    body: { name: 'faults', invitee_ids: others.map((a) => a.id) },
  });
  if (created.status !== 201) throw new Error(`group: ${created.status} ${created.text}`);
  const groupId = created.body.group.group_id as string;
  for (const a of others) {
    const joined = await api(server, 'POST', `/groups/${groupId}/join`, { key: a.key });
    if (joined.status !== 200) throw new Error(`join: ${joined.status} ${joined.text}`);
  }

  const sends: SendRecord[] = [];
  const claims: ClaimRecord[] = [];
  const acks: AckRecord[] = [];
  /** Late ACKs wait for their lease to end; those due after their round's crash do nothing. */
  const late: Promise<void>[] = [];
  let opCounter = 0;
  let crashes = 0;

  async function ack(s: Server, agent: Agent, items: ClaimRecord[]): Promise<void> {
    if (items.length === 0) return;
    const sentAt = Date.now();
    const res = await api(s, 'POST', '/inbox/ack', {
      key: agent.key,
      body: { acks: items.map((c) => ({ message_id: c.messageId, claim_token: c.token })) },
    }).catch(() => null);
    const answeredAt = Date.now();
    items.forEach((c, i) => {
      const result = res?.status === 200 ? res.body.results[i] : null;
      const status = result ? (result.status === 'rejected' ? result.error.code : result.status) : 'unknown';
      acks.push({ agent: agent.id, messageId: c.messageId, token: c.token, sentAt, answeredAt, status });
    });
  }

  async function claimOnce(s: Server, agent: Agent, limit: number, order: string): Promise<ClaimRecord[] | null> {
    const sentAt = Date.now();
    const res = await api(s, 'POST', '/inbox/claim', { key: agent.key, body: { limit, order } }).catch(() => null);
    const answeredAt = Date.now();
    if (res?.status !== 200) return null;
    const got = (res.body.claims as any[]).map((c) => {
      const leaseEnd = Date.parse(c.claim_expires_at);
      return {
        agent: agent.id,
        messageId: c.message.message_id as string,
        body: c.message.body as string,
        token: c.claim_token as string,
        leaseStart: leaseEnd - CLAIM_MS,
        leaseEnd,
        sentAt,
        answeredAt,
      };
    });
    claims.push(...got);
    return got;
  }

  async function sendOnce(s: Server, from: Agent): Promise<void> {
    const op = ++opCounter;
    const body = `fault op ${op}`;
    const group = rand() < 0.4;
    const file = rand() < 0.25;
    const peers = agents.filter((a) => a.id !== from.id);
    const to = group ? peers : rand() < 0.7 ? [pick(peers)] : peers.filter(() => rand() < 0.6).slice(0, 2);
    if (to.length === 0) to.push(pick(peers));
    const record: SendRecord = {
      op,
      kind: group ? 'group' : 'direct',
      from: from.id,
      body,
      recipients: to.map((a) => a.id),
      file,
      outcome: 'unknown',
      promised: [],
      duplicateAnswers: 0,
    };
    sends.push(record);
    const path = group ? `/groups/${groupId}/messages` : '/messages/direct';
    const metadata = group ? { body } : { to_agent_ids: record.recipients, body };
    let res: Awaited<ReturnType<typeof api>> | null;
    if (file) {
      // Unique bytes per operation: any object is traceable to its send.
      const content = Buffer.from(`file of op ${op} ${'x'.repeat(Math.floor(rand() * 4000))}`);
      const form = multipart(metadata, `op-${op}.txt`, content);
      res = await api(s, 'POST', path, {
        key: from.key,
        rawBody: form.body,
        headers: { 'content-type': form.type },
      }).catch(() => null);
    } else {
      res = await api(s, 'POST', path, { key: from.key, body: metadata }).catch(() => null);
    }
    if (!res) return;
    if (res.status < 200 || res.status > 299) {
      record.outcome = 'failed';
      return;
    }
    record.outcome = 'acked';
    if (group) {
      if (res.body.status === 'duplicate') record.duplicateAnswers++;
      else for (const r of record.recipients) record.promised.push({ messageId: res.body.message_id, recipient: r });
    } else {
      for (const r of res.body.results as any[]) {
        if (r.status === 'duplicate') record.duplicateAnswers++;
        if (r.status === 'sent') record.promised.push({ messageId: r.message_id, recipient: r.target_agent_id });
      }
    }
  }

  for (let round = 1; round <= options.rounds; round++) {
    if (round > 1) server = await startServer({ dataDir });
    const s = server;
    let stopped = false;
    const loops: Promise<void>[] = [];
    for (const agent of agents) {
      loops.push(
        (async () => {
          while (!stopped) await sendOnce(s, agent);
        })(),
      );
      // Two sessions of the same agent compete for its inbox.
      for (let session = 0; session < 2; session++) {
        loops.push(
          (async () => {
            while (!stopped) {
              const got = await claimOnce(s, agent, 1 + Math.floor(rand() * 4), rand() < 0.7 ? 'oldest' : 'newest');
              if (!got || got.length === 0) {
                await sleep(got ? 50 : 100);
                continue;
              }
              const now: ClaimRecord[] = [];
              for (const c of got) {
                const r = rand();
                if (r < 0.75) now.push(c);
                // A late ACK, after the lease ran out: it must be refused.
                else if (r < 0.85)
                  late.push(sleep(CLAIM_MS + 200).then(() => (stopped ? undefined : ack(s, agent, [c]))));
                // else: never ACKed; the lease expires and another session claims it again.
              }
              await ack(s, agent, now);
            }
          })(),
        );
      }
    }
    const crashAt = Math.floor(options.roundMs * (0.3 + 0.7 * rand()));
    await sleep(crashAt);
    // No new request starts; those in flight are cut by the crash (their outcome is unknown).
    stopped = true;
    await crash(s);
    crashes++;
    await Promise.all(loops);
    log(`round ${round}: crash after ${crashAt} ms; ${sends.length} sends, ${claims.length} claims so far`);
  }

  await Promise.all(late);

  // Drain: every delivery still unread is claimed and ACKed (leases of the dead rounds expire first).
  server = await startServer({ dataDir });
  const final = server;
  const drainDeadline = Date.now() + 120_000;
  for (const agent of agents) {
    for (;;) {
      const got = await claimOnce(final, agent, 100, 'oldest');
      if (got && got.length > 0) {
        await ack(final, agent, got);
        continue;
      }
      const inbox = await api(final, 'GET', '/inbox', { key: agent.key });
      if (inbox.status === 200 && inbox.body.unread === 0) break;
      if (Date.now() > drainDeadline) throw new Error(`drain: ${agent.id} still has ${inbox.text}`);
      await sleep(300);
    }
  }

  // Cleanup: staged uploads of dead requests expire (30 s leases), deletion jobs finish.
  const adminCookie = await adminLogin(final);
  const cleanupDeadline = Date.now() + 120_000;
  for (;;) {
    const status = (await api(final, 'GET', '/admin/cleanup', { cookie: adminCookie })).body;
    if (status.state === 'idle' && status.pending_jobs === 0 && status.uploads_in_progress === 0) break;
    if (Date.now() > cleanupDeadline) throw new Error(`cleanup did not settle: ${JSON.stringify(status)}`);
    await sleep(500);
  }
  if ((await final.stop('SIGTERM')) !== 0) throw new Error('the final server did not stop cleanly');

  // Storage, read from the stopped server's data directory.
  const channelIds = [groupId];
  for (let i = 0; i < agents.length; i++)
    for (let j = i + 1; j < agents.length; j++) channelIds.push(dmChannelId(agents[i]!.id, agents[j]!.id));
  const owned = await channelOwnership(dataDir, channelIds);
  const objects = await storedObjects(dataDir);

  return check({ options, crashes, sends, claims, acks, owned, objects: objects.map((o) => o.key) });
}

/**
 * Every channel's own account of its objects (live attachments, copies in flight, deletion jobs),
 * read through the ChannelDO's test-only `storedKeys` in a Miniflare over the same state.
 */
async function channelOwnership(
  dataDir: string,
  channelIds: string[],
): Promise<{ live: string[]; pending: string[]; deleting: string[] }> {
  const derived = JSON.parse(readFileSync(join(ROOT, 'dist/worker/miniflare-options.json'), 'utf8')) as WorkerOptions;
  // storedKeys is a test-only control, absent from the production bundle: bundle the test worker
  // (test/workers/test-worker.ts, the production worker plus those controls) the way the build does.
  const outDir = tempDir('switchboard-test-worker-');
  execFileSync('npx', ['wrangler', 'deploy', '--dry-run', '--outdir', outDir, 'test/workers/test-worker.ts'], {
    cwd: ROOT,
    stdio: 'ignore',
    env: { ...process.env, WRANGLER_LOG: 'warn' },
  });
  const scriptPath = join(outDir, 'test-worker.js');
  if (!existsSync(scriptPath)) throw new Error(`the test worker bundle is missing in ${outDir}`);
  const { assets: _assets, ...withoutAssets } = derived as WorkerOptions & { assets?: unknown };
  const mf = new Miniflare({
    cf: false,
    defaultPersistRoot: join(dataDir, 'state'),
    logRequests: false,
    workers: [
      {
        name: 'switchboard',
        ...withoutAssets,
        modules: true,
        scriptPath,
        modulesRoot: dirname(scriptPath),
        bindings: {
          ...withoutAssets.bindings,
          KEY_PEPPER: readFileSync(join(dataDir, 'key-pepper'), 'utf8'),
          FRONT_SECRET: 'inspection',
        },
        serviceBindings: { ...withoutAssets.serviceBindings, HOST_METRICS: () => new MiniflareResponse('{}') },
      },
    ],
  });
  try {
    const namespace = await mf.getDurableObjectNamespace('CHANNEL');
    const out = { live: [] as string[], pending: [] as string[], deleting: [] as string[] };
    for (const channelId of channelIds) {
      const stub = namespace.get(namespace.idFromName(channelId)) as unknown as {
        storedKeys(): Promise<{ live: string[]; pending: string[]; deleting: string[] }>;
      };
      const keys = await stub.storedKeys();
      out.live.push(...keys.live);
      out.pending.push(...keys.pending);
      out.deleting.push(...keys.deleting);
    }
    return out;
  } finally {
    await mf.dispose();
  }
}

/** The total-queue checker over a recorded history (exported so its own test can feed it anomalies). */
export function check(input: {
  options: FaultOptions;
  crashes: number;
  sends: SendRecord[];
  claims: ClaimRecord[];
  acks: AckRecord[];
  owned: { live: string[]; pending: string[]; deleting: string[] };
  objects: string[];
}): FaultSummary {
  const { sends, claims, acks, owned, objects } = input;
  const examples: string[] = [];
  const example = (text: string) => {
    if (examples.length < 20) examples.push(text);
  };
  const delivery = (agent: string, messageId: string) => `${agent} ${messageId}`;

  const claimsOf = new Map<string, ClaimRecord[]>();
  for (const c of claims) {
    const k = delivery(c.agent, c.messageId);
    claimsOf.set(k, [...(claimsOf.get(k) ?? []), c]);
  }
  const readAcks = acks.filter((a) => a.status === 'read');

  // Lost: a promised (message, recipient) the recipient never got in a claim.
  let lostAckedSends = 0;
  for (const s of sends) {
    if (s.outcome !== 'acked') continue;
    for (const p of s.promised) {
      if (!claimsOf.has(delivery(p.recipient, p.messageId))) {
        lostAckedSends++;
        example(`lost: op ${s.op} ${p.messageId} never reached ${p.recipient}`);
      }
    }
  }

  // Duplicates: one send (a unique body) reaching a recipient as two messages, or answered duplicate.
  let duplicateDeliveries = sends.reduce((n, s) => n + s.duplicateAnswers, 0);
  const idsByBody = new Map<string, Set<string>>();
  for (const c of claims) {
    const k = `${c.agent} ${c.body}`;
    idsByBody.set(k, (idsByBody.get(k) ?? new Set()).add(c.messageId));
  }
  for (const [k, ids] of idsByBody) {
    if (ids.size > 1) {
      duplicateDeliveries += ids.size - 1;
      example(`duplicate: ${k} as ${[...ids].join(', ')}`);
    }
  }
  const bodies = new Set(sends.map((s) => s.body));
  const phantomDeliveries = claims.filter((c) => !bodies.has(c.body)).length;

  // Double leases: two claims of one delivery whose leases overlap (server time on both ends).
  let doubleLeases = 0;
  let redeliveredAfterAck = 0;
  for (const [k, list] of claimsOf) {
    const sorted = [...list].sort((a, b) => a.leaseStart - b.leaseStart);
    for (let i = 1; i < sorted.length; i++) {
      if (sorted[i]!.leaseStart < sorted[i - 1]!.leaseEnd) {
        doubleLeases++;
        example(`double lease: ${k} at ${sorted[i - 1]!.leaseStart} and ${sorted[i]!.leaseStart}`);
      }
    }
    // A claim sent after an ACK of this delivery was answered `read`: the ACK did not hold.
    const [agent, messageId] = k.split(' ');
    const firstRead = readAcks
      .filter((a) => a.agent === agent && a.messageId === messageId)
      .reduce((t, a) => Math.min(t, a.answeredAt), Number.POSITIVE_INFINITY);
    for (const c of list) {
      if (c.sentAt > firstRead) {
        redeliveredAfterAck++;
        example(`redelivered after ACK: ${k}`);
      }
    }
  }

  // Stale tokens: an ACK accepted although its lease had ended before the ACK was sent, or a newer
  // claim of the same delivery had been answered before it was sent.
  let staleTokenAcksAccepted = 0;
  const claimByToken = new Map(claims.map((c) => [c.token, c]));
  for (const a of readAcks) {
    const c = claimByToken.get(a.token);
    if (!c) continue;
    const replaced = (claimsOf.get(delivery(a.agent, a.messageId)) ?? []).some(
      (other) => other.token !== a.token && other.leaseStart > c.leaseStart && other.answeredAt < a.sentAt,
    );
    if (a.sentAt > c.leaseEnd || replaced) {
      staleTokenAcksAccepted++;
      example(`stale ACK accepted: ${a.agent} ${a.messageId} (${replaced ? 'replaced' : 'expired'})`);
    }
  }
  // Two different tokens both accepted for one delivery is the same failure.
  const readTokens = new Map<string, Set<string>>();
  for (const a of readAcks) {
    const k = delivery(a.agent, a.messageId);
    readTokens.set(k, (readTokens.get(k) ?? new Set()).add(a.token));
  }
  for (const [k, tokens] of readTokens) {
    if (tokens.size > 1) {
      staleTokenAcksAccepted += tokens.size - 1;
      example(`two tokens accepted: ${k}`);
    }
  }

  // Objects: each stored object is a live attachment, or a copy in flight left by a crashed
  // request (swept after 10 minutes); each live attachment has its object.
  const stored = new Set(objects);
  const live = new Set(owned.live);
  const pending = new Set(owned.pending);
  const orphans = objects.filter((k) => !live.has(k) && !pending.has(k));
  for (const k of orphans.slice(0, 5)) example(`orphan object: ${k}`);
  const missing = owned.live.filter((k) => !stored.has(k));
  for (const k of missing.slice(0, 5)) example(`attachment without object: ${k}`);
  // Copies in flight can only come from file sends cut by a crash: at most one per target.
  const interruptedCopies = sends
    .filter((s) => s.file && s.outcome === 'unknown')
    .reduce((n, s) => n + (s.kind === 'group' ? 1 : s.recipients.length), 0);
  const unexplainedPendingCopies = Math.max(0, pending.size - interruptedCopies);

  const purgedAnswers = acks.filter((a) => a.status === 'message_purged').length;
  return {
    rounds: input.options.rounds,
    crashes: input.crashes,
    sends: {
      attempted: sends.length,
      acked: sends.filter((s) => s.outcome === 'acked').length,
      failed: sends.filter((s) => s.outcome === 'failed').length,
      unknown: sends.filter((s) => s.outcome === 'unknown').length,
      withFile: sends.filter((s) => s.file && s.outcome === 'acked').length,
    },
    promisedDeliveries: sends.reduce((n, s) => n + s.promised.length, 0),
    claims: claims.length,
    acks: {
      read: readAcks.length,
      alreadyRead: acks.filter((a) => a.status === 'already_read').length,
      rejected: acks.filter((a) => !['read', 'already_read', 'unknown'].includes(a.status)).length,
      unknown: acks.filter((a) => a.status === 'unknown').length,
    },
    pendingCopiesAfterCrash: pending.size,
    liveAttachments: live.size,
    storedObjects: objects.length,
    violations: {
      lostAckedSends,
      duplicateDeliveries,
      doubleLeases,
      staleTokenAcksAccepted,
      redeliveredAfterAck,
      orphanObjects: orphans.length,
      attachmentsWithoutObject: missing.length,
      unexplainedPendingCopies,
      phantomDeliveries,
      purgedAnswers,
    },
    examples,
  };
}

/** The summary as a plain-text table. */
export function formatSummary(s: FaultSummary, options: FaultOptions): string {
  const rows: [string, string | number][] = [
    ['rounds (SIGKILL of the whole server each)', `${s.rounds} × ≤ ${options.roundMs} ms, seed ${options.seed}`],
    [
      'sends attempted / 2xx / refused / cut by a crash',
      `${s.sends.attempted} / ${s.sends.acked} / ${s.sends.failed} / ${s.sends.unknown}`,
    ],
    ['  of the 2xx, with a file', s.sends.withFile],
    ['deliveries promised by 2xx answers', s.promisedDeliveries],
    ['claims answered', s.claims],
    [
      'ACKs read / already_read / rejected / cut',
      `${s.acks.read} / ${s.acks.alreadyRead} / ${s.acks.rejected} / ${s.acks.unknown}`,
    ],
    ['live attachments / stored objects', `${s.liveAttachments} / ${s.storedObjects}`],
    ['copies in flight left by crashes (swept after 10 min)', s.pendingCopiesAfterCrash],
    ['— must all be 0 —', ''],
    ['lost acknowledged sends', s.violations.lostAckedSends],
    ['duplicate deliveries', s.violations.duplicateDeliveries],
    ['double leases', s.violations.doubleLeases],
    ['stale-token ACKs accepted', s.violations.staleTokenAcksAccepted],
    ['redelivered after an accepted ACK', s.violations.redeliveredAfterAck],
    ['R2 objects without a live owner', s.violations.orphanObjects],
    ['attachments without their object', s.violations.attachmentsWithoutObject],
    ['copies in flight not explained by a crash', s.violations.unexplainedPendingCopies],
    ['deliveries of a message nobody sent', s.violations.phantomDeliveries],
    ['message_purged answers (retention must evict nothing)', s.violations.purgedAnswers],
  ];
  const width = Math.max(...rows.map(([k]) => k.length));
  const lines = rows.map(([k, v]) => `${k.padEnd(width)}  ${v}`);
  if (s.examples.length > 0) lines.push('', 'examples:', ...s.examples.map((e) => `  ${e}`));
  return lines.join('\n');
}
