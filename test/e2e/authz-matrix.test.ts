/**
 * The authorization matrix (issue 10, "keep the proofs in the repo"): every operation of the
 * registry against every way of asking without the right, through the real front (a wrong source
 * address needs a real TCP peer). Generated from `operationList`, with one entry per operation in
 * `authz/routes.ts`, so a new route cannot be forgotten. Each cell gets its expected refusal
 * (status and code), and the cells together change nothing: the state read through the API is the
 * same before and after, and the claim the matrix aimed at still works.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operationList } from '../../core/contract/index.js';
import type { OperationDef } from '../../core/contract/registry.js';
import { type Expected, ROUTES, type Sample, type World } from './authz/routes.js';
import {
  type ApiOptions,
  type ApiResponse,
  adminLogin,
  api,
  createAgent,
  createHost,
  errorCode,
  type Server,
  startServer,
} from './harness.js';
import { type DiskSnapshot, diskSnapshot, storageChanges } from './hostile/data-dir.js';

/** A cell is named from the registry alone; its request is built once the world exists. */
interface Cell {
  /** `<operation id>: <what is tried>`: unique. */
  name: string;
  op: OperationDef;
  options: () => ApiOptions;
  sample: () => Sample;
  expected: Expected;
}
type CellSpec = Omit<Cell, 'op' | 'sample'>;

/** The client headers that claim another client address; the front must ignore every one. */
const SPOOFED = {
  'CF-Connecting-IP': '127.0.0.1',
  'X-Forwarded-For': '127.0.0.1',
  'X-Real-IP': '127.0.0.1',
  'True-Client-IP': '127.0.0.1',
  'X-Client-IP': '127.0.0.1',
  Forwarded: 'for=127.0.0.1',
  'MF-CF-Blob': JSON.stringify({ clientIp: '127.0.0.1' }),
};
const FOREIGN_ORIGIN = 'http://evil.example';

let server: Server;
let world: World;
let cookie: string;
let loggedOutCookie: string;
/** Sessions of their own for the Origin cells of logout, which would end the session if accepted. */
const logoutTargets: Record<string, string> = {};
let revokedKey: string;
let disabledKey: string;
const results = new Map<string, ApiResponse>();
let stateBefore: unknown;
let stateAfter: unknown;
let diskBefore: DiskSnapshot;
let diskAfter: DiskSnapshot;

const changesState = (op: OperationDef) => op.method !== 'get';

function pathOf(op: OperationDef, sample: Sample): string {
  const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = sample.params?.[name];
    if (value === undefined) throw new Error(`${op.id}: no sample value for {${name}}`);
    return encodeURIComponent(value);
  });
  return sample.query ? `${path}?${sample.query}` : path;
}

const refused = (status: number, code: string): Expected => ({ status, code });
const randomKey = (agentId = `agt_${randomBytes(16).toString('base64url')}`) =>
  `sbk_${agentId}.${randomBytes(32).toString('base64url')}`;

/** The credential cells every operation of a role gets. */
function credentialCells(op: OperationDef, sample: () => Sample): CellSpec[] {
  if (op.role === 'agent') {
    const out: CellSpec[] = [
      { name: 'no key', options: () => ({}), expected: refused(401, 'unauthenticated') },
      {
        name: 'wrong key for a real agent',
        options: () => ({ key: randomKey(world.a.id) }),
        expected: refused(401, 'unauthenticated'),
      },
      {
        name: 'key of an agent that does not exist',
        options: () => ({ key: randomKey() }),
        expected: refused(401, 'unauthenticated'),
      },
      { name: 'revoked key', options: () => ({ key: revokedKey }), expected: refused(401, 'unauthenticated') },
      { name: 'disabled agent', options: () => ({ key: disabledKey }), expected: refused(401, 'unauthenticated') },
      {
        name: 'administrator session instead of a key',
        options: () => ({ cookie }),
        expected: refused(401, 'unauthenticated'),
      },
      {
        name: 'wrong source address',
        options: () => ({ key: world.a.key, localAddress: '127.0.0.2' }),
        expected: refused(403, 'source_ip_denied'),
      },
      {
        name: 'wrong source address with spoofed forwarding headers',
        options: () => ({ key: world.a.key, localAddress: '127.0.0.2', headers: SPOOFED }),
        expected: refused(403, 'source_ip_denied'),
      },
    ];
    // Bearer keys are not ambient credentials (a browser never attaches them), so Origin matters
    // for agents only where the worker checks it today: routes that take a body.
    if (op.body || op.upload) {
      out.push({
        name: 'foreign Origin',
        options: () => ({ key: world.a.key, headers: { origin: FOREIGN_ORIGIN } }),
        expected: refused(403, 'forbidden'),
      });
    }
    return out;
  }
  if (op.role === 'admin') {
    const out: CellSpec[] = [
      { name: 'no session', options: () => ({}), expected: refused(401, 'unauthenticated') },
      {
        name: 'forged session cookie',
        options: () => ({ cookie: `switchboard_session=${randomBytes(32).toString('base64url')}` }),
        expected: refused(401, 'unauthenticated'),
      },
      {
        name: 'logged-out session',
        options: () => ({ cookie: loggedOutCookie }),
        expected: refused(401, 'unauthenticated'),
      },
      { name: 'agent key', options: () => ({ key: world.a.key }), expected: refused(401, 'unauthenticated') },
      {
        name: 'agent key as the session cookie',
        options: () => ({ cookie: `switchboard_session=${world.a.key}` }),
        expected: refused(401, 'unauthenticated'),
      },
      {
        name: 'agent key with spoofed forwarding headers',
        options: () => ({ key: world.a.key, headers: SPOOFED }),
        expected: refused(401, 'unauthenticated'),
      },
    ];
    if (changesState(op)) {
      const needs = op.body ? '' : ' [needs: foreign Origin on body-less admin routes]';
      out.push(
        {
          name: `foreign Origin${needs}`,
          options: () => ({
            cookie: op.id === 'adminLogout' ? logoutTargets.foreign : cookie,
            headers: { origin: FOREIGN_ORIGIN },
          }),
          expected: refused(403, 'forbidden'),
        },
        {
          name: `Origin: null${needs}`,
          options: () => ({
            cookie: op.id === 'adminLogout' ? logoutTargets.null : cookie,
            headers: { origin: 'null' },
          }),
          expected: refused(403, 'forbidden'),
        },
      );
    }
    return out;
  }
  // Public operations: the ones that change state refuse a cross-site request.
  const out: CellSpec[] = [];
  if (op.body) {
    out.push(
      {
        name: 'foreign Origin',
        options: () => ({ headers: { origin: FOREIGN_ORIGIN } }),
        expected: refused(403, 'forbidden'),
      },
      { name: 'Origin: null', options: () => ({ headers: { origin: 'null' } }), expected: refused(403, 'forbidden') },
    );
  }
  if (op.id === 'adminLogin') {
    // One failure only, from its own address: sign-in throttling counts failures per address.
    out.push({
      name: 'unknown administrator',
      options: () => ({ localAddress: '127.0.0.3', body: { ...(sample().body as object), username: 'nobody-here' } }),
      expected: refused(401, 'unauthenticated'),
    });
  }
  if (op.id === 'adminSetup') {
    // Once an administrator exists, setup is closed whatever the token.
    out.push({ name: 'wrong setup token', options: () => ({}), expected: refused(409, 'conflict') });
  }
  return out;
}

/** Built from the registry when this file loads, so every cell is its own named test. */
function buildCells(): Cell[] {
  const out: Cell[] = [];
  for (const op of operationList) {
    const entry = ROUTES[op.id as keyof typeof ROUTES];
    if (!entry) continue; // reported by the coverage test below
    const sample = () => entry.sample(world);
    for (const cell of credentialCells(op, sample)) {
      out.push({ ...cell, name: `${op.id}: ${cell.name}`, op, sample });
    }
    for (const foreign of entry.foreign ?? []) {
      out.push({
        name: `${op.id}: ${foreign.name}`,
        op,
        sample: () => foreign.sample(world),
        options: () => ({ key: world[foreign.actor].key }),
        expected: foreign.expected,
      });
    }
  }
  return out;
}
const cells = buildCells();

function send(cell: Cell): Promise<ApiResponse> {
  const { op } = cell;
  const sample = cell.sample();
  const options: ApiOptions = cell.options();
  if (options.body === undefined && sample.body !== undefined) options.body = sample.body;
  return api(server, op.method.toUpperCase(), pathOf(op, sample), options);
}

/** Runs `tasks` with at most `width` in flight. */
async function pool<T>(items: T[], width: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await task(items[next++] as T);
  };
  await Promise.all(Array.from({ length: width }, worker));
}

/** Everything a cell could have changed, read through the API (last access times left out). */
async function visibleState(): Promise<unknown> {
  const get = async (path: string, auth: ApiOptions) => {
    const res = await api(server, 'GET', path, auth);
    // A refusal here is a change too (a session ended, a key replaced): keep it in the state.
    return res.status === 200 ? res.body : { status: res.status, code: res.body?.error?.code };
  };
  const admin = { cookie };
  const agents = ((await get('/admin/agents?limit=200', admin)).agents ?? []).map(
    // Accepted requests move last access (and the address it came from); that is not a change.
    ({ last_access_at: _, last_access_address: __, ...agent }: Record<string, unknown>) => agent,
  );
  const byAgent: Record<string, unknown> = {};
  for (const actor of ['a', 'b', 'c'] as const) {
    const key = world[actor].key;
    byAgent[actor] = {
      me: await get('/me', { key }),
      groups: await get('/groups', { key }),
      channels: await get('/channels', { key }),
      inbox: await get('/inbox', { key }),
    };
  }
  return {
    hosts: await get('/admin/hosts?limit=200', admin),
    agents,
    groups: await get('/admin/groups?limit=200', admin),
    channels: await get('/admin/channels?limit=200', admin),
    dm: await get(`/admin/channels/${world.dmId}/messages`, admin),
    group: await get(`/admin/channels/${world.groupId}/messages`, admin),
    settings: await get('/admin/settings', admin),
    byAgent,
  };
}

beforeAll(async () => {
  server = await startServer();
  cookie = await adminLogin(server);
  // Long claims: the matrix aims at one live claim and checks at the end that it still works.
  const settings = await api(server, 'PATCH', '/admin/settings', { cookie, body: { claim_seconds: 3600 } });
  expect(settings.status, settings.text).toBe(200);
  const host = await createHost(server, cookie, ['127.0.0.1']);
  const spareHost = await createHost(server, cookie, ['192.0.2.201']);
  const [a, b, c, target, disabled, revoked] = await Promise.all(
    ['a', 'b', 'c', 'target', 'disabled', 'revoked'].map((name) =>
      createAgent(server, cookie, host.host_id, `matrix-${name}`),
    ),
  );
  if (!a || !b || !c || !target || !disabled || !revoked) throw new Error('agents not created');
  const off = await api(server, 'PATCH', `/admin/agents/${disabled.agent.agent_id}`, {
    cookie,
    body: { enabled: false },
  });
  expect(off.status, off.text).toBe(200);
  disabledKey = disabled.key;
  const revoke = await api(server, 'DELETE', `/admin/agents/${revoked.agent.agent_id}/key`, { cookie });
  expect(revoke.status, revoke.text).toBe(200);
  revokedKey = revoked.key;
  const ended = await adminLogin(server);
  expect((await api(server, 'POST', '/admin/logout', { cookie: ended })).status).toBe(200);
  loggedOutCookie = ended;
  logoutTargets.foreign = await adminLogin(server);
  logoutTargets.null = await adminLogin(server);

  const group = await api(server, 'POST', '/groups', {
    key: a.key,
    body: { name: 'matrix', invitee_ids: [b.agent.agent_id] },
  });
  expect(group.status, group.text).toBe(201);
  const groupId = group.body.group.group_id as string;
  expect((await api(server, 'POST', `/groups/${groupId}/join`, { key: b.key })).status).toBe(200);
  const spareGroup = await api(server, 'POST', '/groups', {
    key: a.key,
    body: { name: 'matrix-spare', invitee_ids: [b.agent.agent_id] },
  });
  expect(spareGroup.status, spareGroup.text).toBe(201);
  const spareGroupId = spareGroup.body.group.group_id as string;
  expect((await api(server, 'POST', `/groups/${spareGroupId}/join`, { key: b.key })).status).toBe(200);

  const form = new FormData();
  form.append('metadata', JSON.stringify({ to_agent_ids: [b.agent.agent_id], body: 'matrix file' }));
  form.append('file', new Blob(['matrix bytes'], { type: 'text/plain' }), 'matrix.txt');
  const sent = await fetch(`${server.url}/api/v1/messages/direct`, {
    method: 'POST',
    headers: { authorization: `Bearer ${a.key}` },
    body: form,
  });
  const sentBody = (await sent.json()) as { results: { message_id: string; channel_id: string }[] };
  expect(sent.status, JSON.stringify(sentBody)).toBe(200);
  const { message_id: messageId, channel_id: dmId } = sentBody.results[0] as { message_id: string; channel_id: string };
  const claim = await api(server, 'POST', '/inbox/claim', { key: b.key, body: { limit: 1, channel_id: dmId } });
  expect(claim.status, claim.text).toBe(200);
  expect(claim.body.claims[0].message.message_id).toBe(messageId);

  world = {
    a: { id: a.agent.agent_id, key: a.key },
    b: { id: b.agent.agent_id, key: b.key },
    c: { id: c.agent.agent_id, key: c.key },
    target: { id: target.agent.agent_id, key: target.key },
    spareGroupId,
    hostId: host.host_id,
    spareHostId: spareHost.host_id,
    groupId,
    dmId,
    messageId,
    fileId: claim.body.claims[0].message.attachment.file_id,
    claimToken: claim.body.claims[0].claim_token,
  };

  stateBefore = await visibleState();
  diskBefore = diskSnapshot(server.dataDir);
  await pool(cells, 12, async (cell) => {
    results.set(cell.name, await send(cell));
  });
  diskAfter = diskSnapshot(server.dataDir);
  stateAfter = await visibleState();
}, 120_000);

afterAll(async () => {
  await server?.stop();
});

describe('coverage', () => {
  it('every operation of the registry has an entry, and every entry is an operation', () => {
    expect(Object.keys(ROUTES).sort()).toEqual(operationList.map((op) => op.id).sort());
  });

  it('every operation is refused to someone, or says why it is open', () => {
    for (const op of operationList) {
      const count = cells.filter((cell) => cell.op.id === op.id).length;
      const open = ROUTES[op.id as keyof typeof ROUTES]?.open;
      expect(count > 0 || open !== undefined, `${op.id} has no cell and no reason to be open`).toBe(true);
    }
  });
});

describe('every cell is refused', () => {
  it('the matrix has cells for every role, each name unique', () => {
    expect(cells.length).toBeGreaterThan(300);
    expect(new Set(cells.map((cell) => cell.name)).size).toBe(cells.length);
    for (const role of ['agent', 'admin', 'public']) expect(cells.some((cell) => cell.op.role === role)).toBe(true);
  });

  for (const cell of cells) {
    const want =
      'itemsRejected' in cell.expected
        ? `200, items rejected ${cell.expected.itemsRejected}`
        : `${cell.expected.status} ${cell.expected.code}`;
    it(`${cell.name} → ${want}`, () => {
      const res = results.get(cell.name) as ApiResponse;
      const label = `${cell.name}: ${res.status} ${res.text.slice(0, 300)}`;
      if ('itemsRejected' in cell.expected) {
        expect(res.status, label).toBe(200);
        const items = (res.body.results ?? []) as { status: string; error?: { code: string } }[];
        expect(items.length, label).toBeGreaterThan(0);
        for (const item of items) {
          expect(item.status, label).toBe('rejected');
          expect(item.error?.code, label).toBe(cell.expected.itemsRejected);
        }
        return;
      }
      expect(res.status, label).toBe(cell.expected.status);
      expect(errorCode(res), label).toBe(cell.expected.code);
    });
  }
});

describe('the refused cells changed nothing', () => {
  it('the state read through the API is unchanged [needs: foreign Origin on body-less admin routes]', () => {
    expect(stateAfter).toEqual(stateBefore);
  });

  it('no Durable Object, database or blob was created [needs: unauthenticated storage creation]', () => {
    expect(storageChanges(diskBefore, diskAfter)).toEqual([]);
  });

  it("B's claim survived every attempt on it: B's ACK with its token is accepted", async () => {
    const ack = await api(server, 'POST', '/inbox/ack', {
      key: world.b.key,
      body: { acks: [{ message_id: world.messageId, claim_token: world.claimToken }] },
    });
    expect(ack.status, ack.text).toBe(200);
    expect(ack.body.results[0].status).toBe('read');
  });
});
