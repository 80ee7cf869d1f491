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
/** max_deliveries in the run: deliveries left unACKed this often park, and some sessions claim parked ones. */
export const MAX_DELIVERIES = 4;
/**
 * After the last restart, every message in history must be offered by its recipient's inbox within
 * this long. Notes cut by a crash go out by the channel's alarm, due 5 s after the commit, so at
 * once when the restart comes later; the bound leaves room for a loaded machine (about 3 s seen
 * under a load of 20 on 2 cores), and none for the 30 s safety alarm that once left messages
 * unreadable after a drain (30 s after the commit: 13 s after a restart that took 17 s).
 */
const OFFER_BOUND_MS = 10_000;

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
  deliveryCount: number;
  /** Taken by a `claim {parked: true}`. */
  parked: boolean;
}

/** An ACK of one claim: `status` is read/already_read, a refusal code, or 'unknown' (cut). */
export interface AckRecord {
  agent: string;
  messageId: string;
  token: string;
  sentAt: number;
  answeredAt: number;
  status: string;
}

/** An extend or release of one claim: `status` is extended/released, a refusal code, or 'unknown' (cut). */
export interface LeaseOpRecord extends AckRecord {
  kind: 'extend' | 'release';
  /** extended only: the new expiry (server time). */
  expiresAt?: number;
}

export interface FaultSummary {
  rounds: number;
  crashes: number;
  sends: { attempted: number; acked: number; failed: number; unknown: number; withFile: number };
  promisedDeliveries: number;
  claims: number;
  parkedClaims: number;
  acks: { read: number; alreadyRead: number; rejected: number; unknown: number };
  extends: { extended: number; rejected: number; unknown: number };
  releases: { released: number; rejected: number; unknown: number };
  /** (message, recipient) pairs of every message in history at the end. */
  historyDeliveries: number;
  pendingCopiesAfterCrash: number;
  liveAttachments: number;
  storedObjects: number;
  violations: {
    lostAckedSends: number;
    duplicateDeliveries: number;
    doubleLeases: number;
    staleTokenAcksAccepted: number;
    staleExtendsOrReleasesAccepted: number;
    parkRuleBroken: number;
    deliveryCountsWrong: number;
    redeliveredAfterAck: number;
    unreadable: number;
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
    body: {
      claim_seconds: CLAIM_SECONDS,
      max_deliveries: MAX_DELIVERIES,
      max_messages_per_channel: 1_000_000,
      max_files_per_channel: 1_000_000,
    },
  });
  if (settings.status !== 200) throw new Error(`settings: ${settings.status} ${settings.text}`);
  const host = await createHost(server, cookie, ['127.0.0.1']);
  const agents: Agent[] = [];
  for (let i = 0; i < options.agents; i++) {
    const { agent, key } = await createAgent(server, cookie, host.host_id, `fault-${i}`);
    agents.push({ id: agent.agent_id, key });
  }
  const [owner, ...others] = agents as [Agent, ...Agent[]];
  const members = agents.map((a) => a.id);
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
  const leaseOps: LeaseOpRecord[] = [];
  /** Late ACKs and extenders wait on leases; those due after their round's crash do nothing. */
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

  /** POST /inbox/extend (to claim_seconds from now) or /inbox/release; true when every item was accepted. */
  async function leaseOp(s: Server, kind: 'extend' | 'release', agent: Agent, items: ClaimRecord[]): Promise<boolean> {
    if (items.length === 0) return true;
    const sentAt = Date.now();
    const res = await api(s, 'POST', `/inbox/${kind}`, {
      key: agent.key,
      body: { items: items.map((c) => ({ message_id: c.messageId, claim_token: c.token })) },
    }).catch(() => null);
    const answeredAt = Date.now();
    let all = true;
    items.forEach((c, i) => {
      const result = res?.status === 200 ? res.body.results[i] : null;
      const status = result ? (result.status === 'rejected' ? result.error.code : result.status) : 'unknown';
      if (status !== 'extended' && status !== 'released') all = false;
      leaseOps.push({
        kind,
        agent: agent.id,
        messageId: c.messageId,
        token: c.token,
        sentAt,
        answeredAt,
        status,
        ...(status === 'extended' && { expiresAt: Date.parse(result.claim_expires_at) }),
      });
    });
    return all;
  }

  async function claimOnce(
    s: Server,
    agent: Agent,
    limit: number,
    order: string,
    parked = false,
  ): Promise<ClaimRecord[] | null> {
    const sentAt = Date.now();
    const res = await api(s, 'POST', '/inbox/claim', {
      key: agent.key,
      body: { limit, order, ...(parked && { parked: true }) },
    }).catch(() => null);
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
        deliveryCount: c.delivery_count as number,
        parked,
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
    /** Work that needs longer than the claim: extends before the lease runs out, 1 to 3 times, then mostly ACKs. */
    const keepThenAck = async (agent: Agent, c: ClaimRecord) => {
      const times = 1 + Math.floor(rand() * 3);
      for (let i = 0; i < times; i++) {
        await sleep(CLAIM_MS * 0.5);
        if (stopped || !(await leaseOp(s, 'extend', agent, [c]))) return;
      }
      if (!stopped && rand() < 0.7) await ack(s, agent, [c]);
    };
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
              const parked = rand() < 0.1;
              const limit = 1 + Math.floor(rand() * 4);
              const got = await claimOnce(s, agent, limit, rand() < 0.7 ? 'oldest' : 'newest', parked);
              if (!got || got.length === 0) {
                await sleep(got ? 50 : 100);
                continue;
              }
              const now: ClaimRecord[] = [];
              const release: ClaimRecord[] = [];
              for (const c of got) {
                const r = rand();
                if (r < 0.6) now.push(c);
                // A late ACK, after the lease ran out: it must be refused.
                else if (r < 0.7)
                  late.push(sleep(CLAIM_MS + 200).then(() => (stopped ? undefined : ack(s, agent, [c]))));
                // Extended while the other session keeps claiming: it must never get this delivery meanwhile.
                else if (r < 0.8) late.push(keepThenAck(agent, c));
                // Handed back: claimable again at once (or parked), its token dead.
                else if (r < 0.9) release.push(c);
                // else: never ACKed; the lease expires and another session claims it again.
              }
              await Promise.all([ack(s, agent, now), leaseOp(s, 'release', agent, release)]);
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

  // The fault point: a SIGKILL exactly between a send's commit and its index notes, the moment that
  // once left messages in history that no inbox offered. Two agents that never had a message (their
  // indexes list no channel with the sender, so no poll asks those channels) get one two-target send.
  // Each channel logs when it holds there (durable-objects/shared/fault-point.ts); once both have,
  // the whole server dies.
  server = await startServer({ dataDir, env: { SWITCHBOARD_TEST_FAULT_POINT: 'send-committed' } });
  const pointServer = server;
  const pointCookie = await adminLogin(pointServer);
  const fresh: Agent[] = [];
  for (let i = 0; i < 2; i++) {
    const { agent, key } = await createAgent(pointServer, pointCookie, host.host_id, `fault-point-${i}`);
    fresh.push({ id: agent.agent_id, key });
  }
  const pointOp = ++opCounter;
  const pointSend: SendRecord = {
    op: pointOp,
    kind: 'direct',
    from: owner.id,
    body: `fault op ${pointOp}`,
    recipients: fresh.map((a) => a.id),
    file: false,
    outcome: 'unknown',
    promised: [],
    duplicateAnswers: 0,
  };
  sends.push(pointSend);
  const reached = () => pointServer.stdout().split('fault point send-committed reached').length - 1;
  const cut = api(pointServer, 'POST', '/messages/direct', {
    key: owner.key,
    body: { to_agent_ids: pointSend.recipients, body: pointSend.body },
  }).catch(() => null);
  const pointDeadline = Date.now() + 30_000;
  while (reached() < fresh.length) {
    if (Date.now() > pointDeadline) throw new Error(`the fault point was not reached:\n${pointServer.stdout()}`);
    await sleep(20);
  }
  const heldAt = Date.now();
  await crash(pointServer);
  crashes++;
  if ((await cut)?.status) throw new Error('the send held at the fault point was answered');
  agents.push(...fresh);
  log(`fault point: SIGKILL between the commit and the index notes of op ${pointOp}`);

  // Drain: every delivery still unread is claimed and ACKed (leases of the dead rounds expire
  // first), parked ones too, over and over until OFFER_BOUND_MS after the restart and until every
  // inbox says nothing is unread.
  server = await startServer({ dataDir });
  const final = server;
  const restartedAt = Date.now();
  const offerDeadline = restartedAt + OFFER_BOUND_MS;
  log(`restarted ${restartedAt - heldAt} ms after the fault point`);
  const drainAll = async (agent: Agent) => {
    for (const parked of [false, true]) {
      for (;;) {
        const got = await claimOnce(final, agent, 100, 'oldest', parked);
        if (!got || got.length === 0) break;
        await ack(final, agent, got);
      }
    }
  };
  const drainDeadline = restartedAt + 120_000;
  for (;;) {
    for (const agent of agents) await drainAll(agent);
    if (Date.now() >= offerDeadline) {
      const inboxes = await Promise.all(agents.map((agent) => api(final, 'GET', '/inbox', { key: agent.key })));
      if (inboxes.every((inbox) => inbox.status === 200 && inbox.body.unread === 0)) break;
      if (Date.now() > drainDeadline) throw new Error(`drain: still unread ${inboxes.map((i) => i.text).join(' ')}`);
    }
    await sleep(300);
  }

  // Only now the history (the administrator's read of every channel, which claims nothing): it
  // opens every channel, and a channel that opens delivers its outbox, so read earlier it would
  // deliver the very notes whose absence the bound is about.
  const adminCookie = await adminLogin(final);
  const channelIds = [groupId];
  for (let i = 0; i < agents.length; i++)
    for (let j = i + 1; j < agents.length; j++) channelIds.push(dmChannelId(agents[i]!.id, agents[j]!.id));
  const history = await historyDeliveries(final, adminCookie, channelIds, members);
  const pointClaims = claims.filter((c) => c.body === pointSend.body);
  log(
    `fault point's messages offered ${pointClaims.map((c) => `${c.answeredAt - restartedAt} ms`).join(', ') || 'never'} after the restart`,
  );

  // Cleanup: staged uploads of dead requests expire (30 s leases), deletion jobs finish.
  const cleanupDeadline = Date.now() + 120_000;
  for (;;) {
    const status = (await api(final, 'GET', '/admin/cleanup', { cookie: adminCookie })).body;
    if (status.state === 'idle' && status.pending_jobs === 0 && status.uploads_in_progress === 0) break;
    if (Date.now() > cleanupDeadline) throw new Error(`cleanup did not settle: ${JSON.stringify(status)}`);
    await sleep(500);
  }
  if ((await final.stop('SIGTERM')) !== 0) throw new Error('the final server did not stop cleanly');

  // Storage, read from the stopped server's data directory.
  const owned = await channelOwnership(dataDir, channelIds);
  const objects = await storedObjects(dataDir);

  return check({
    options,
    crashes,
    sends,
    claims,
    acks,
    leaseOps,
    history,
    offerDeadline,
    owned,
    objects: objects.map((o) => o.key),
  });
}

/**
 * Every (message, recipient) pair in the channels' history, read as an administrator (nothing is
 * claimed or marked read): in a private channel the participant who did not send it, in the
 * group every member but its sender (everyone joined before the first message).
 */
async function historyDeliveries(
  s: Server,
  cookie: string,
  channelIds: string[],
  groupMembers: string[],
): Promise<{ messageId: string; recipient: string }[]> {
  const out: { messageId: string; recipient: string }[] = [];
  for (const channelId of channelIds) {
    let cursor: string | null = null;
    do {
      const query: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
      const page = await api(s, 'GET', `/admin/channels/${channelId}/messages?limit=500${query}`, { cookie });
      // A pair that never exchanged a message has no channel.
      if (page.status === 404) break;
      if (page.status !== 200) throw new Error(`history of ${channelId}: ${page.status} ${page.text}`);
      const participants: string[] = channelId.startsWith('dm_')
        ? (page.body.channel.participants as { agent_id: string }[]).map((p) => p.agent_id)
        : groupMembers;
      for (const m of page.body.messages as { message_id: string; sender_id: string }[]) {
        for (const recipient of participants) {
          if (recipient !== m.sender_id) out.push({ messageId: m.message_id, recipient });
        }
      }
      cursor = page.body.next_cursor;
    } while (cursor);
  }
  return out;
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
  leaseOps?: LeaseOpRecord[];
  /** Every (message, recipient) pair in history at the end (historyDeliveries). */
  history?: { messageId: string; recipient: string }[];
  /** Claims answered later than this do not count as offering a message in history. */
  offerDeadline?: number;
  owned: { live: string[]; pending: string[]; deleting: string[] };
  objects: string[];
}): FaultSummary {
  const { sends, claims, acks, owned, objects } = input;
  const leaseOps = input.leaseOps ?? [];
  const history = input.history ?? [];
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

  // Extends and releases per token. For double leases a lease ends as early as it may have: at its
  // latest answered extension (server time), but no later than a release was sent (the server's
  // `now` for it is never earlier). For stale tokens it ends as late as it may have: an extend cut
  // by a crash may have extended it by up to claim_seconds.
  const opsOf = new Map<string, LeaseOpRecord[]>();
  for (const op of leaseOps) opsOf.set(op.token, [...(opsOf.get(op.token) ?? []), op]);
  const earliestEnd = (c: ClaimRecord): number => {
    let end = c.leaseEnd;
    for (const op of opsOf.get(c.token) ?? []) {
      if (op.status === 'extended' && op.expiresAt !== undefined) end = Math.max(end, op.expiresAt);
    }
    for (const op of opsOf.get(c.token) ?? []) if (op.status === 'released') end = Math.min(end, op.sentAt);
    return end;
  };
  /** The latest the lease of `c` may have lasted, as known to a request sent at `t`. */
  const latestEnd = (c: ClaimRecord, t: number): number => {
    let end = c.leaseEnd;
    for (const op of opsOf.get(c.token) ?? []) {
      if (op.kind !== 'extend' || op.sentAt >= t) continue;
      if (op.status === 'extended' && op.expiresAt !== undefined) end = Math.max(end, op.expiresAt);
      if (op.status === 'unknown') end = Math.max(end, op.answeredAt + CLAIM_MS);
    }
    return end;
  };
  const releasedBefore = (token: string, t: number) =>
    (opsOf.get(token) ?? []).some((op) => op.status === 'released' && op.answeredAt < t);
  const replacedBefore = (c: ClaimRecord, t: number) =>
    (claimsOf.get(delivery(c.agent, c.messageId)) ?? []).some(
      (other) => other.token !== c.token && other.leaseStart > c.leaseStart && other.answeredAt < t,
    );

  // Double leases: two claims of one delivery whose leases overlap (server time on both ends), an
  // extended lease counted to its new expiry, a released one to its release.
  let doubleLeases = 0;
  let deliveryCountsWrong = 0;
  let parkRuleBroken = 0;
  let redeliveredAfterAck = 0;
  for (const [k, list] of claimsOf) {
    const sorted = [...list].sort((a, b) => a.leaseStart - b.leaseStart || a.deliveryCount - b.deliveryCount);
    let liveUntil = Number.NEGATIVE_INFINITY;
    for (let i = 0; i < sorted.length; i++) {
      const c = sorted[i]!;
      if (c.leaseStart < liveUntil) {
        doubleLeases++;
        example(`double lease: ${k} leased again at ${c.leaseStart}, the lease before ran to ${liveUntil}`);
      }
      liveUntil = Math.max(liveUntil, earliestEnd(c));
      // Each claim counts once: the counts of one delivery's claims rise strictly.
      if (i > 0 && c.deliveryCount <= sorted[i - 1]!.deliveryCount) {
        deliveryCountsWrong++;
        example(`delivery count: ${k} claimed as ${sorted[i - 1]!.deliveryCount} then ${c.deliveryCount}`);
      }
      // Parking: an ordinary claim never offers a delivery claimed max_deliveries times already, and a
      // parked claim offers only those.
      if (c.parked ? c.deliveryCount <= MAX_DELIVERIES : c.deliveryCount > MAX_DELIVERIES) {
        parkRuleBroken++;
        example(`park rule: ${k} claimed ${c.parked ? 'as parked' : 'ordinarily'} with count ${c.deliveryCount}`);
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
  const staleness = (c: ClaimRecord, sentAt: number): string | null =>
    releasedBefore(c.token, sentAt)
      ? 'released'
      : replacedBefore(c, sentAt)
        ? 'replaced'
        : sentAt > latestEnd(c, sentAt)
          ? 'expired'
          : null;
  for (const a of readAcks) {
    const c = claimByToken.get(a.token);
    if (!c) continue;
    const stale = staleness(c, a.sentAt);
    if (stale) {
      staleTokenAcksAccepted++;
      example(`stale ACK accepted: ${a.agent} ${a.messageId} (${stale})`);
    }
  }
  // The same for extends and releases: a token whose lease ended extends and releases nothing.
  let staleExtendsOrReleasesAccepted = 0;
  for (const op of leaseOps) {
    if (op.status !== 'extended' && op.status !== 'released') continue;
    const c = claimByToken.get(op.token);
    if (!c) continue;
    const stale = staleness(c, op.sentAt);
    if (stale) {
      staleExtendsOrReleasesAccepted++;
      example(`stale ${op.kind} accepted: ${op.agent} ${op.messageId} (${stale})`);
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

  // Unreadable: a message in history its recipient's inbox never offered (within the bound after
  // the last restart, runFaults).
  const offerDeadline = input.offerDeadline ?? Number.POSITIVE_INFINITY;
  const offered = new Set(
    claims.filter((c) => c.answeredAt <= offerDeadline).map((c) => delivery(c.agent, c.messageId)),
  );
  const unreadable = history.filter((d) => !offered.has(delivery(d.recipient, d.messageId)));
  for (const d of unreadable.slice(0, 5))
    example(`unreadable: ${d.messageId} in history, never offered to ${d.recipient}`);

  const purgedAnswers = [...acks, ...leaseOps].filter((a) => a.status === 'message_purged').length;
  const opCounts = (kind: LeaseOpRecord['kind'], accepted: string) => {
    const ops = leaseOps.filter((op) => op.kind === kind);
    return {
      done: ops.filter((op) => op.status === accepted).length,
      rejected: ops.filter((op) => op.status !== accepted && op.status !== 'unknown').length,
      unknown: ops.filter((op) => op.status === 'unknown').length,
    };
  };
  const extendCounts = opCounts('extend', 'extended');
  const releaseCounts = opCounts('release', 'released');
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
    parkedClaims: claims.filter((c) => c.parked).length,
    extends: { extended: extendCounts.done, rejected: extendCounts.rejected, unknown: extendCounts.unknown },
    releases: { released: releaseCounts.done, rejected: releaseCounts.rejected, unknown: releaseCounts.unknown },
    historyDeliveries: history.length,
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
      staleExtendsOrReleasesAccepted,
      parkRuleBroken,
      deliveryCountsWrong,
      redeliveredAfterAck,
      unreadable: unreadable.length,
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
    ['claims answered (of them parked: true)', `${s.claims} (${s.parkedClaims})`],
    ['extends extended / refused / cut', `${s.extends.extended} / ${s.extends.rejected} / ${s.extends.unknown}`],
    ['releases released / refused / cut', `${s.releases.released} / ${s.releases.rejected} / ${s.releases.unknown}`],
    ['(message, recipient) pairs in history at the end', s.historyDeliveries],
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
    ['stale-token extends or releases accepted', s.violations.staleExtendsOrReleasesAccepted],
    ['parked offered to an ordinary claim (or not parked to parked: true)', s.violations.parkRuleBroken],
    ['delivery counts not rising claim by claim', s.violations.deliveryCountsWrong],
    ['redelivered after an accepted ACK', s.violations.redeliveredAfterAck],
    [`in history, never offered by the inbox (${OFFER_BOUND_MS / 1000} s after restart)`, s.violations.unreadable],
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
