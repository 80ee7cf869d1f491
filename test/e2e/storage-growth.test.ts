/**
 * Issue 10, item 2, on the real launcher: no refused request creates or grows durable state.
 * Before the fix, 1,000 `GET /me` with keys naming random agent IDs left 1,000 SQLite files
 * (+45 MB), and one agent asking for `/channels/grp_<random>/files` left a ~110 KB database each
 * time. Here every case sends 1,000 refused requests (STORAGE_GROWTH_REQUESTS to change) and the
 * data directory must hold the same files with the same sizes afterwards.
 *
 * Measured at rest, as durable state. Each case starts the server on the same data directory,
 * sends its requests and stops it; the measure after the stop must equal the one after the
 * previous stop. A SQLite database counts as one file of (pages x page size) bytes, its pages
 * read as SQLite would recover them (main file plus committed write-ahead-log frames, see
 * sqlitePages), because raw file sizes move without any write: an object's `-wal`/`-shm` files
 * appear when it is opened and vanish when it is evicted, and a checkpoint moves pages from the
 * log into the main file. Every other file (R2 objects, the key pepper) counts by its size.
 * Unrelated background work is allowed for, not hidden: the accepted requests of a known agent
 * record last access (a registry row update, an alarm row) and channel alarms may run; these
 * rewrite existing pages and add none, whereas a new object adds a file and a new row in an
 * existing one sooner or later a page, which this measure sees.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminLogin, api, createAgent, createHost, type Server, startServer } from './harness.js';

const REQUESTS = Number(process.env.STORAGE_GROWTH_REQUESTS ?? 1_000);
const CONCURRENCY = 16;
const QUIET_MS = 1_500;
/** A start, 1,000 requests and a stop on a loaded 2-core machine; not a speed assertion. */
const CASE_TIMEOUT_MS = 300_000;

let server: Server;
let cookie: string;
let a: { id: string; key: string };
let b: { id: string; key: string };
let knownDm: string;
let knownGroup: string;

const random = (bytes: number) => randomBytes(bytes).toString('base64url');
const randomAgentId = () => `agt_${random(16)}`;
const randomGroupId = () => `grp_${random(16)}`;
/** A private channel ID has 22 characters after `dm_` (core/domain/ids.ts). */
const randomDmId = () => `dm_${random(16)}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The pages of a SQLite database as SQLite itself would see it on opening: the main file's size,
 * or, when its write-ahead log holds committed frames, the database size recorded by the last
 * commit frame whose salts match the log's header (file format: sqlite.org/fileformat2.html).
 * Measuring pages rather than file sizes makes the measure blind to where SQLite keeps the pages
 * (log or main file) and to checkpoints, but not to a single page added.
 */
function sqlitePages(mainFile: string): number {
  const main = readFileSync(mainFile);
  const rawPageSize = main.length >= 18 ? main.readUInt16BE(16) : 0;
  const pageSize = rawPageSize === 1 ? 65_536 : rawPageSize;
  let pages = pageSize > 0 ? Math.ceil(main.length / pageSize) : 0;
  const walFile = `${mainFile}-wal`;
  if (!existsSync(walFile)) return pages;
  const wal = readFileSync(walFile);
  if (wal.length < 32) return pages;
  const walPageSize = wal.readUInt32BE(8);
  const [salt1, salt2] = [wal.readUInt32BE(16), wal.readUInt32BE(20)];
  for (let at = 32; at + 24 + walPageSize <= wal.length; at += 24 + walPageSize) {
    if (wal.readUInt32BE(at + 8) !== salt1 || wal.readUInt32BE(at + 12) !== salt2) break;
    const commitSize = wal.readUInt32BE(at + 4);
    if (commitSize > 0) pages = commitSize;
  }
  return pages;
}

interface Measure {
  /** Durable files: one per SQLite database (its log and shared-memory index are part of it), plus every other file. */
  files: number;
  /** SQLite databases in pages (times the page size), other files by size. */
  bytes: number;
  sizes: Map<string, number>;
}

/**
 * The data directory's durable state, but `run/` (the running launcher's ports and process ID,
 * rewritten by every start). `-shm` files are SQLite's shared-memory index, rebuilt on opening,
 * and `-wal` files are counted with their database (sqlitePages).
 */
function measure(dir: string): Measure {
  const sizes = new Map<string, number>();
  const walk = (path: string) => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const full = join(path, entry.name);
      if (entry.isDirectory()) {
        if (full !== join(dir, 'run')) walk(full);
      } else if (entry.name.endsWith('.sqlite')) {
        const main = readFileSync(full);
        const rawPageSize = main.length >= 18 ? main.readUInt16BE(16) : 4_096;
        sizes.set(relative(dir, full), sqlitePages(full) * (rawPageSize === 1 ? 65_536 : rawPageSize || 4_096));
      } else if (!entry.name.endsWith('.sqlite-wal') && !entry.name.endsWith('.sqlite-shm')) {
        sizes.set(relative(dir, full), statSync(full).size);
      }
    }
  };
  walk(dir);
  return { files: sizes.size, bytes: [...sizes.values()].reduce((n, size) => n + size, 0), sizes };
}

function growth(before: Measure, after: Measure) {
  const changed: string[] = [];
  for (const [file, size] of after.sizes) {
    const old = before.sizes.get(file);
    if (old !== size) changed.push(`${file}: ${old ?? 'new'} -> ${size}`);
  }
  for (const file of before.sizes.keys()) if (!after.sizes.has(file)) changed.push(`${file}: removed`);
  return { files: after.files - before.files, bytes: after.bytes - before.bytes, changed };
}

interface Attempt {
  method: string;
  path: string;
  key?: string;
  cookie?: string;
  body?: unknown;
}

/** Sends `REQUESTS` requests made by `make`, `CONCURRENCY` at a time; returns the statuses seen. */
async function flood(make: (i: number) => Attempt): Promise<Map<string, number>> {
  const seen = new Map<string, number>();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < REQUESTS) {
        const attempt = make(next++);
        const res = await api(server, attempt.method, attempt.path, attempt);
        const label = `${res.status} ${res.body?.results?.[0]?.error?.code ?? res.body?.error?.code ?? ''}`;
        seen.set(label, (seen.get(label) ?? 0) + 1);
      }
    }),
  );
  return seen;
}

let dataDir: string;
/** The data directory as the last clean stop left it. */
let atRest: Measure;

async function stopAndMeasure(): Promise<Measure> {
  expect(await server.stop()).toBe(0);
  return measure(dataDir);
}

beforeAll(async () => {
  server = await startServer();
  dataDir = server.dataDir;
  cookie = await adminLogin(server);
  const hostId = (await createHost(server, cookie, ['127.0.0.1'])).host_id;
  const make = async () => {
    const { agent, key } = await createAgent(server, cookie, hostId);
    return { id: agent.agent_id, key };
  };
  [a, b] = [await make(), await make()];
  // Some real state, so that known IDs exist next to the random ones.
  const sent = await api(server, 'POST', '/messages/direct', {
    key: a.key,
    body: { to_agent_ids: [b.id], body: 'hello' },
  });
  expect(sent.status).toBe(200);
  knownDm = sent.body.results[0].channel_id;
  const group = await api(server, 'POST', '/groups', { key: a.key, body: { name: 'team', invitee_ids: [b.id] } });
  expect(group.status).toBe(201);
  knownGroup = group.body.group.group_id;
  expect((await api(server, 'GET', '/me', { key: b.key })).status).toBe(200);
  // Let the last-access writes and alarms of this set-up land before the first measure.
  await sleep(QUIET_MS);
  atRest = await stopAndMeasure();
});

afterAll(async () => {
  await server?.stop();
});

/** How many audit entries of `action` the log holds (docs/audit-log.md), by every page. */
async function auditEntries(action: string): Promise<number> {
  let count = 0;
  let cursor: string | null = null;
  do {
    const query: string = `action=${action}&limit=1000${cursor ? `&cursor=${cursor}` : ''}`;
    const page = await api(server, 'GET', `/admin/audit?${query}`, { cookie });
    expect(page.status).toBe(200);
    count += page.body.entries.filter((e: { outcome: string }) => e.outcome === 'not_found').length;
    cursor = page.body.next_cursor;
  } while (cursor);
  return count;
}

/**
 * One case: start on the same data, the flood, a clean stop; no file may be new, gone or resized.
 * A refused administrator write is still that administrator's action, so `audited` names the
 * operation whose audit entries are the one growth allowed: exactly one per request, in the
 * registry's existing database (its log is capped at 100,000 entries), and nothing else.
 */
async function expectNoGrowth(make: (i: number) => Attempt, expected: string[], audited?: string): Promise<void> {
  server = await startServer({ dataDir });
  const seen = await flood(make);
  if (audited) expect(await auditEntries(audited)).toBe(REQUESTS);
  await sleep(QUIET_MS);
  const after = await stopAndMeasure();
  const before = atRest;
  atRest = after;
  expect([...seen.keys()].sort()).toEqual([...expected].sort());
  const registryOnly = (m: Measure): Measure => {
    const sizes = new Map([...m.sizes].filter(([file]) => !file.includes('RegistryDO')));
    return { files: m.files, bytes: [...sizes.values()].reduce((n, size) => n + size, 0), sizes };
  };
  if (audited) expect(growth(registryOnly(before), registryOnly(after))).toEqual({ files: 0, bytes: 0, changed: [] });
  else expect(growth(before, after)).toEqual({ files: 0, bytes: 0, changed: [] });
}

describe(`${REQUESTS} refused requests per case leave the data directory unchanged`, () => {
  it('keys naming unknown agents', { timeout: CASE_TIMEOUT_MS }, async () => {
    await expectNoGrowth(
      () => ({ method: 'GET', path: '/me', key: `sbk_${randomAgentId()}.${random(32)}` }),
      ['401 unauthenticated'],
    );
  });

  it('wrong secrets for an existing agent', { timeout: CASE_TIMEOUT_MS }, async () => {
    await expectNoGrowth(
      () => ({ method: 'GET', path: '/me', key: `sbk_${a.id}.${random(32)}` }),
      ['401 unauthenticated'],
    );
  });

  // Agent routes naming a channel, group, message or file the agent was never in.
  const agentCases: [string, () => Attempt, string][] = [
    ['channel files', () => ({ method: 'GET', path: `/channels/${randomGroupId()}/files` }), '404 not_found'],
    ['channel history', () => ({ method: 'GET', path: `/channels/${randomDmId()}/messages` }), '404 not_found'],
    ['inbox of a channel', () => ({ method: 'GET', path: `/inbox?channel_id=${randomGroupId()}` }), '404 not_found'],
    [
      'claim in a channel',
      () => ({ method: 'POST', path: '/inbox/claim', body: { channel_id: randomDmId() } }),
      '404 not_found',
    ],
    [
      'ACK of a message',
      () => ({
        method: 'POST',
        path: '/inbox/ack',
        body: { acks: [{ message_id: `msg_g${random(16)}${random(12).slice(0, 16)}`, claim_token: random(32) }] },
      }),
      '200 not_found',
    ],
    [
      'file download',
      () => ({ method: 'GET', path: `/files/fil_g${random(16)}${random(12).slice(0, 16)}/content` }),
      '404 not_found',
    ],
    ['group view', () => ({ method: 'GET', path: `/groups/${randomGroupId()}` }), '404 not_found'],
    [
      'group invitation',
      () => ({ method: 'POST', path: `/groups/${randomGroupId()}/invitations`, body: { agent_ids: [b.id] } }),
      '404 not_found',
    ],
    ['group join', () => ({ method: 'POST', path: `/groups/${randomGroupId()}/join` }), '403 not_invited'],
    ['group leave', () => ({ method: 'POST', path: `/groups/${randomGroupId()}/leave` }), '404 not_found'],
    [
      'group message',
      () => ({ method: 'POST', path: `/groups/${randomGroupId()}/messages`, body: { body: 'hi' } }),
      '404 not_found',
    ],
    [
      'direct message to unknown agents',
      () => ({ method: 'POST', path: '/messages/direct', body: { to_agent_ids: [randomAgentId()], body: 'hi' } }),
      '200 unknown_agent',
    ],
  ];
  for (const [name, make, expected] of agentCases) {
    it(`an agent: ${name}`, { timeout: CASE_TIMEOUT_MS }, async () => {
      await expectNoGrowth(() => ({ ...make(), key: a.key }), [expected]);
    });
  }

  // The operation ID names the writes, which the audit log records (and only it grows).
  const adminCases: [string, () => Attempt, string?][] = [
    ['channel history', () => ({ method: 'GET', path: `/admin/channels/${randomGroupId()}/messages` })],
    [
      'group owner',
      () => ({ method: 'POST', path: `/admin/groups/${randomGroupId()}/owner`, body: { agent_id: a.id } }),
      'reassignGroupOwner',
    ],
    ['group dissolution', () => ({ method: 'DELETE', path: `/admin/groups/${randomGroupId()}` }), 'dissolveGroup'],
    [
      'agent change',
      () => ({ method: 'PATCH', path: `/admin/agents/${randomAgentId()}`, body: { enabled: false } }),
      'updateAgent',
    ],
    ['agent key', () => ({ method: 'POST', path: `/admin/agents/${randomAgentId()}/key` }), 'regenerateAgentKey'],
  ];
  for (const [name, make, audited] of adminCases) {
    it(`an administrator: ${name}`, { timeout: CASE_TIMEOUT_MS }, async () => {
      await expectNoGrowth(() => ({ ...make(), cookie }), ['404 not_found'], audited);
    });
  }

  it('still serves the channels and groups that exist', async () => {
    server = await startServer({ dataDir });
    expect((await api(server, 'GET', `/channels/${knownDm}/messages`, { key: b.key })).status).toBe(200);
    expect((await api(server, 'GET', `/channels/${knownGroup}/files`, { key: a.key })).status).toBe(200);
    expect((await api(server, 'POST', `/groups/${knownGroup}/join`, { key: b.key })).status).toBe(200);
  });
});
