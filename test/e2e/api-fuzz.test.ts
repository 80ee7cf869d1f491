/**
 * A fuzzer of our own, in the spirit of schemathesis (which lives on PyPI, out of reach here):
 * requests generated from `openapi.json` (the registry's schemas) with fast-check, sent to a real
 * server, and every answer held to the document by the oracle (fuzz/oracle.ts). Three phases:
 *
 * - valid: random operations with inputs the schemas accept, IDs drawn from what earlier answers
 *   returned (create, use, delete: a stateful walk over hosts, agents, groups, messages, claims,
 *   files, administrators and sessions);
 * - near-valid: a valid input with one thing the schema refuses; the answer must be a 400
 *   validation error and nothing may be stored;
 * - after the walk: what was deleted stays deleted (a deleted agent's key and page are gone).
 *
 * The seed is fixed so CI is repeatable; `SWITCHBOARD_FUZZ_SEED=<n>` and
 * `SWITCHBOARD_FUZZ_RUNS=<n>` explore further.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DocOperation, Oracle, operationsOf } from './fuzz/oracle.js';
import { type Schema, SchemaSpace } from './fuzz/schema-arbitrary.js';
import {
  type ApiResponse,
  adminLogin,
  api,
  createAgent,
  createHost,
  ROOT,
  type Server,
  startServer,
} from './harness.js';

const document = JSON.parse(readFileSync(join(ROOT, 'openapi.json'), 'utf8'));
const operations = operationsOf(document);
const oracle = new Oracle(document);
const space = new SchemaSpace(document.components.schemas);

const SEED = Number(process.env.SWITCHBOARD_FUZZ_SEED ?? 20261201);
const RUNS = Number(process.env.SWITCHBOARD_FUZZ_RUNS ?? 600);

/** Not walked at random: each would end the walk's own access, and each is tested elsewhere. */
const NOT_WALKED = new Set([
  'adminSetup', // answers conflict once set up (admin-setup tests)
  'adminLogin', // failed sign-ins throttle the address the walk signs in from (admin-lockout)
  'changeAdminPassword', // a wrong current password counts as a failed sign-in of that account
]);

interface KeyedAgent {
  agent_id: string;
  key: string;
  address: string;
  host_id: string;
}

/** What the walk has seen: IDs from answers, live and deleted. */
class Pools {
  readonly ids = new Map<string, Set<string>>();
  readonly dead = new Map<string, Set<string>>();
  readonly keyed = new Map<string, KeyedAgent>();
  readonly revokedKeys = new Set<string>();
  readonly claims: { message_id: string; claim_token: string }[] = [];
  readonly hostAddress = new Map<string, string>();
  readonly admins = new Set<string>();
  /** next_cursor answers, by the query they continue (cursorKey). */
  readonly cursors = new Map<string, string>();
  private nextAddress = 10;

  freshAddress(): string {
    this.nextAddress += 1;
    if (this.nextAddress > 250) this.nextAddress = 11;
    return `127.0.0.${this.nextAddress}`;
  }

  add(kind: string, id: string): void {
    if (this.dead.get(kind)?.has(id)) return;
    const set = this.ids.get(kind) ?? new Set<string>();
    this.ids.set(kind, set.add(id));
  }

  kill(kind: string, id: string): void {
    this.ids.get(kind)?.delete(id);
    const set = this.dead.get(kind) ?? new Set<string>();
    this.dead.set(kind, set.add(id));
  }

  /** Mostly a live ID, sometimes a deleted one, rarely one that never existed. */
  pick(kind: string, prefix: string): fc.Arbitrary<string> {
    return fc.tuple(fc.nat(), fc.nat(99)).map(([index, roll]) => {
      const live = [...(this.ids.get(kind) ?? [])];
      const dead = [...(this.dead.get(kind) ?? [])];
      if (roll < 80 && live.length > 0) return live[index % live.length] as string;
      if (roll < 92 && dead.length > 0) return dead[index % dead.length] as string;
      return `${prefix}fuzz${index % 1000}`;
    });
  }

  harvest(value: unknown): void {
    if (typeof value === 'string') {
      const prefix = /^(agt|hst|grp|msg|fil|dm|ses)_/.exec(value)?.[1];
      if (prefix) this.add(prefix, value);
      if (prefix === 'grp' || prefix === 'dm') this.add('channel', value);
    } else if (Array.isArray(value)) {
      for (const item of value) this.harvest(item);
    } else if (value && typeof value === 'object') {
      const record = value as Record<string, unknown>;
      if (typeof record.message_id === 'string' && typeof record.claim_token === 'string') {
        this.claims.push({ message_id: record.message_id, claim_token: record.claim_token });
        if (this.claims.length > 50) this.claims.shift();
      }
      for (const item of Object.values(record)) this.harvest(item);
    }
  }
}

describe('the API against its OpenAPI document, fuzzed', () => {
  let server: Server;
  let cookie: string;
  const pools = new Pools();
  const failures: string[] = [];
  const statuses = new Map<string, Map<number | string, number>>();

  beforeAll(async () => {
    server = await startServer();
    cookie = await adminLogin(server);
    for (let i = 0; i < 3; i += 1) {
      const address = pools.freshAddress();
      const host = await createHost(server, cookie, [address]);
      pools.hostAddress.set(host.host_id, address);
      pools.add('hst', host.host_id);
      for (let j = 0; j < 2; j += 1) {
        const { agent, key } = await createAgent(server, cookie, host.host_id);
        pools.add('agt', agent.agent_id);
        pools.keyed.set(agent.agent_id, { agent_id: agent.agent_id, key, address, host_id: host.host_id });
      }
    }
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
  });

  /** Arbitraries by field name: IDs from the pools, addresses the walk can connect from. */
  function hints(op: DocOperation): Record<string, fc.Arbitrary<unknown>> {
    const agents = pools.pick('agt', 'agt_');
    const claimed = fc.nat().map((i) => {
      const recent = pools.claims.slice(-3 - (i % 3));
      return recent.length > 0 ? recent : [{ message_id: 'msg_fuzz', claim_token: 'tok_fuzz' }];
    });
    return {
      agent_id: agents,
      host_id: pools.pick('hst', 'hst_'),
      group_id: pools.pick('grp', 'grp_'),
      channel_id: pools.pick('channel', 'dm_'),
      message_id: pools.pick('msg', 'msg_'),
      // Mostly a new message: a reply must name a message of the same channel.
      reply_to: fc.oneof(
        { weight: 4, arbitrary: fc.constant(undefined) },
        { weight: 1, arbitrary: pools.pick('msg', 'msg_') },
      ),
      thread_id: pools.pick('msg', 'msg_'),
      file_id: pools.pick('fil', 'fil_'),
      session_id: pools.pick('ses', 'ses_'),
      owner_id: agents,
      new_owner_id: agents,
      participant: agents,
      owner: agents,
      to_agent_ids: fc.array(agents, { minLength: 1, maxLength: 3 }),
      invitee_ids: fc.array(agents, { minLength: 0, maxLength: 3 }),
      // A host the walk creates gets an address of its own; an update keeps the host reachable.
      addresses: fc.constant(null).map(() => [pools.freshAddress()]),
      ...(op.id === 'updateHost' && { addresses: fc.constant(undefined) }),
      username:
        op.id === 'createAdmin'
          ? fc.stringMatching(/^fuzz[a-z0-9]{1,12}$/)
          : fc.nat().map((i) => [...pools.admins][i % Math.max(1, pools.admins.size)] ?? 'nobody'),
      acks: claimed,
      items: claimed,
      // Only a cursor the server issued for the same query is valid (validRequest adds it).
      cursor: fc.constant(undefined),
    };
  }

  function sample<T>(arbitrary: fc.Arbitrary<T>, seed: number): T {
    return fc.sample(arbitrary, { numRuns: 1, seed })[0] as T;
  }

  interface Request {
    path: string;
    query: Record<string, unknown>;
    body: unknown;
  }

  function validRequest(op: DocOperation, seed: number): Request {
    const fieldHints = hints(op);
    const values: Record<string, unknown> = {};
    for (const parameter of op.parameters) {
      const arbitrary = fieldHints[parameter.name] ?? space.valid(parameter.schema);
      const value = sample(
        parameter.required || parameter.in === 'path' ? arbitrary : fc.option(arbitrary, { freq: 2 }),
        seed + parameter.name.length,
      );
      if (value !== null && value !== undefined) values[`${parameter.in}:${parameter.name}`] = value;
    }
    let path = op.path;
    const query: Record<string, unknown> = {};
    for (const [slot, value] of Object.entries(values)) {
      const [where, name] = slot.split(':') as [string, string];
      if (where === 'path') path = path.replace(`{${name}}`, encodeURIComponent(String(value)));
      else query[name] = value;
    }
    const cursor = pools.cursors.get(cursorKey(op, path, query));
    if (cursor && seed % 2 === 0) query.cursor = cursor;
    const body = op.jsonBody ? sample(space.valid(op.jsonBody, fieldHints), seed) : undefined;
    return { path, query, body };
  }

  async function send(op: DocOperation, request: Request, caller?: KeyedAgent): Promise<ApiResponse> {
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(request.query)) search.set(name, String(value));
    const url = request.path + (search.size > 0 ? `?${search}` : '');
    const options =
      op.role === 'agent' && caller
        ? { key: caller.key, localAddress: caller.address }
        : op.role === 'admin'
          ? { cookie }
          : {};
    return api(server, op.method, url.replace('/api/v1', ''), {
      ...options,
      ...(request.body !== undefined && { body: request.body }),
    });
  }

  function record(op: DocOperation, request: Request, res: ApiResponse, phase: string): void {
    const counts = statuses.get(op.id) ?? new Map<number | string, number>();
    const key = res.status < 300 ? res.status : `${res.status} ${res.body?.error?.code}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
    statuses.set(op.id, counts);
    const problems = oracle.check(op, res);
    if (problems.length > 0) {
      failures.push(
        `${phase} ${op.method} ${request.path} ${JSON.stringify(request.query)} ${JSON.stringify(request.body)?.slice(0, 300)}\n` +
          `  -> ${res.status} ${res.text.slice(0, 300)}\n  ${problems.join('\n  ')}`,
      );
    }
  }

  /** Keeps the pools true to what the server now holds. */
  async function learn(op: DocOperation, request: Request, res: ApiResponse, caller?: KeyedAgent): Promise<void> {
    if (res.status === 401 && op.role === 'admin') cookie = await adminLogin(server);
    if (res.status >= 300) return;
    if (typeof res.body?.next_cursor === 'string') {
      pools.cursors.set(cursorKey(op, request.path, request.query), res.body.next_cursor);
    }
    const pathId = decodeURIComponent(request.path.split('/').filter(Boolean).at(-1) ?? '');
    const body = res.body as Record<string, any>;
    switch (op.id) {
      case 'createHost': {
        const address = (request.body as { addresses: string[] }).addresses[0] as string;
        pools.hostAddress.set(body.host.host_id, address);
        break;
      }
      case 'createAgent':
      case 'regenerateAgentKey': {
        const agentId = body.agent?.agent_id ?? pathId.replace(/\/key$/, '');
        const id = op.id === 'createAgent' ? agentId : request.path.split('/').at(-2);
        const hostId = body.agent?.host_id ?? pools.keyed.get(id)?.host_id;
        const address = pools.hostAddress.get(hostId);
        if (address && typeof body.api_key === 'string') {
          pools.keyed.set(id, { agent_id: id, key: body.api_key, address, host_id: hostId });
        }
        break;
      }
      case 'updateAgent': {
        const keyed = pools.keyed.get(pathId);
        const address = pools.hostAddress.get(body.agent?.host_id);
        if (keyed && address) pools.keyed.set(pathId, { ...keyed, address, host_id: body.agent.host_id });
        // A disabled agent's key is refused: it can no longer call for the walk.
        if (body.agent?.enabled === false) pools.keyed.delete(pathId);
        break;
      }
      case 'revokeAgentKey': {
        const id = request.path.split('/').at(-2) as string;
        const keyed = pools.keyed.get(id);
        if (keyed) pools.revokedKeys.add(keyed.key);
        pools.keyed.delete(id);
        break;
      }
      case 'deleteAgent': {
        const keyed = pools.keyed.get(pathId);
        if (keyed) pools.revokedKeys.add(keyed.key);
        pools.keyed.delete(pathId);
        pools.kill('agt', pathId);
        break;
      }
      case 'deleteHost':
        pools.kill('hst', pathId);
        break;
      case 'dissolveGroup':
        pools.kill('grp', pathId);
        break;
      case 'endAdminSession':
        pools.kill('ses', pathId);
        break;
      case 'createAdmin':
        pools.admins.add((request.body as { username: string }).username);
        break;
      case 'deleteAdmin':
        pools.admins.delete(pathId);
        break;
      case 'adminLogout':
        cookie = await adminLogin(server);
        break;
    }
    if (op.id !== 'deleteAgent' && op.id !== 'deleteHost') pools.harvest(body);
    void caller;
  }

  function caller(seed: number): KeyedAgent | undefined {
    const keyed = [...pools.keyed.values()];
    return keyed[seed % Math.max(1, keyed.length)];
  }

  async function ensureAgents(): Promise<void> {
    while (pools.keyed.size < 3) {
      let host = pools.keyed.size > 0 ? [...pools.keyed.values()][0]?.host_id : undefined;
      if (!host) {
        const address = pools.freshAddress();
        host = (await createHost(server, cookie, [address])).host_id;
        pools.hostAddress.set(host, address);
      }
      const { agent, key } = await createAgent(server, cookie, host);
      pools.add('agt', agent.agent_id);
      pools.keyed.set(agent.agent_id, {
        agent_id: agent.agent_id,
        key,
        address: pools.hostAddress.get(host) as string,
        host_id: host,
      });
    }
  }

  it('answers every valid request as documented, through a stateful walk', { timeout: 240_000 }, async () => {
    const walked = operations.filter((op) => !NOT_WALKED.has(op.id));
    const random = fc.sample(fc.integer({ min: 0, max: 2 ** 30 }), { numRuns: RUNS, seed: SEED });
    for (const [step, seed] of random.entries()) {
      await ensureAgents();
      // Sends come often, so claims, ACKs, history, search and files have something to work on.
      const op =
        step % 4 === 0
          ? (operations.find((o) => o.id === (step % 8 === 0 ? 'sendDirect' : 'claimMessages')) as DocOperation)
          : (walked[seed % walked.length] as DocOperation);
      const request = validRequest(op, seed);
      const who = caller(seed);
      const res = await send(op, request, who);
      record(op, request, res, 'valid');
      // The document accepted this input, so the server's own validation must too: a refusal
      // here is a schema that promises more than the server takes (schemathesis's
      // positive_data_acceptance).
      // A refusal with `limit` is a bound set by the settings (claim_seconds, max_page_size…),
      // which no static schema can state.
      if (res.body?.error?.code === 'validation_failed' && res.body.error.limit === undefined) {
        failures.push(
          `valid ${op.method} ${request.path} ${JSON.stringify(request.query)} ${JSON.stringify(request.body)?.slice(0, 300)}\n` +
            `  -> ${res.status} ${res.text.slice(0, 300)}\n  the document accepts this input`,
        );
      }
      await learn(op, request, res, who);
    }
    if (process.env.SWITCHBOARD_FUZZ_STATS) {
      for (const [id, counts] of statuses) console.log(id, JSON.stringify(Object.fromEntries(counts)));
    }
    expect(failures, failures.slice(0, 15).join('\n\n')).toEqual([]);
    // The walk reached the operations' success paths, not just their refusals.
    const succeeded = [...statuses].filter(([, counts]) =>
      [...counts.keys()].some((status) => typeof status === 'number'),
    );
    expect(succeeded.length).toBeGreaterThan(walked.length * 0.6);
  });

  it('refuses every near-valid request with a 400 and stores nothing', { timeout: 180_000 }, async () => {
    failures.length = 0;
    // Callers the walk has not touched: a refusal here must be about the input alone.
    pools.keyed.clear();
    await ensureAgents();
    const overview = async () => (await api(server, 'GET', '/admin/overview', { cookie })).body.counts;
    const before = await overview();
    const candidates = operations.filter((op) => op.jsonBody || op.parameters.length > 0);
    const random = fc.sample(fc.integer({ min: 0, max: 2 ** 30 }), { numRuns: Math.ceil(RUNS / 2), seed: SEED + 1 });
    let refused = 0;
    for (const seed of random) {
      const op = candidates[seed % candidates.length] as DocOperation;
      const request = validRequest(op, seed);
      const rng = mulberry32(seed);
      const broken = breakOne(op, request, rng);
      if (!broken) continue;
      const res = await send(op, broken, caller(seed));
      record(op, broken, res, 'near-valid');
      // validation_failed, or the 400 of the rule the schema only documents (empty_message).
      if (res.status !== 400 || !op.codes.get(400)?.has(res.body?.error?.code)) {
        failures.push(
          `near-valid ${op.method} ${broken.path} ${JSON.stringify(broken.query)} ${JSON.stringify(broken.body)?.slice(0, 300)}\n` +
            `  -> ${res.status} ${res.text.slice(0, 300)}\n  expected 400 validation_failed`,
        );
      }
      refused += 1;
      if (res.status === 401 && op.role === 'admin') cookie = await adminLogin(server);
    }
    expect(failures, failures.slice(0, 15).join('\n\n')).toEqual([]);
    expect(refused).toBeGreaterThan(RUNS / 4);
    const after = await overview();
    // The registry's counts are exact. Message and file counts come from the channel catalog,
    // which trails the walk's sends and trims by more than any settling wait can bound, so for
    // those the proof is above: every send of this phase was answered 400.
    for (const name of ['hosts', 'agents', 'enabled_agents']) expect(after[name], name).toBe(before[name]);
  });

  it('answers a known path with another method 405 naming the allowed ones', async () => {
    for (const method of ['TRACE', 'PUT', 'DELETE']) {
      const res = await api(server, method, '/inbox', {});
      expect(res.status, method).toBe(405);
      expect(res.body.error.code).toBe('method_not_allowed');
      expect(res.headers.allow).toBe('GET, HEAD');
    }
    const res = await api(server, 'PUT', '/admin/agents/agt_x', { cookie });
    expect(res.headers.allow).toBe('DELETE, GET, HEAD, PATCH');
    expect((await api(server, 'GET', '/no/such/route', {})).status).toBe(404);
  });

  it('validates the path before the media type of the body', async () => {
    const hostPath = '/admin/hosts/not-a-host-id';
    const res = await api(server, 'PATCH', hostPath, {
      cookie,
      rawBody: 'x',
      headers: { 'content-type': 'text/plain' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.field).toBe('host_id');
    const hostId = [...pools.hostAddress.keys()][0];
    const wrongType = await api(server, 'PATCH', `/admin/hosts/${hostId}`, {
      cookie,
      rawBody: 'x',
      headers: { 'content-type': 'text/plain' },
    });
    expect(wrongType.status).toBe(415);
  });

  it('keeps deleted things deleted', async () => {
    for (const id of pools.dead.get('agt') ?? []) {
      const res = await api(server, 'GET', `/admin/agents/${id}`, { cookie });
      expect(res.status, id).toBe(404);
    }
    const anyAddress = [...pools.hostAddress.values()][0] as string;
    for (const key of pools.revokedKeys) {
      const res = await api(server, 'GET', '/me', { key, localAddress: anyAddress });
      expect(res.status).toBe(401);
    }
  });

  /** One thing the schema refuses, in the body, a query parameter or a path parameter. */
  function breakOne(op: DocOperation, request: Request, rng: () => number): Request | undefined {
    const slots: (() => Request | undefined)[] = [];
    if (op.jsonBody) {
      slots.push(() => {
        const body = space.nearValid(op.jsonBody as Schema, request.body, rng);
        if (body === undefined || oracle.accepts(op.jsonBody as Schema, body)) return undefined;
        return { ...request, body };
      });
    }
    for (const parameter of op.parameters) {
      slots.push(() => {
        const valid = parameter.in === 'query' ? request.query[parameter.name] : undefined;
        const value = space.nearValid(parameter.schema, valid ?? sample(space.valid(parameter.schema), 1), rng);
        if (value === undefined || typeof value === 'object') return undefined;
        // An empty path segment is another route, not a bad parameter.
        if (parameter.in === 'path' && String(value) === '') return undefined;
        // Query and path values travel as text: only a text the schema refuses breaks the request.
        if (acceptsAsText(parameter.schema, String(value))) return undefined;
        if (parameter.in === 'query') return { ...request, query: { ...request.query, [parameter.name]: value } };
        const path = op.path.replace(`{${parameter.name}}`, encodeURIComponent(String(value)));
        return { ...request, path: fillPath(path, request.path, op.path) };
      });
    }
    if (op.parameters.some((parameter) => parameter.in === 'query')) {
      slots.push(() => ({ ...request, query: { ...request.query, [`x_${Math.floor(rng() * 1000)}`]: '1' } }));
    }
    for (let attempt = 0; attempt < 4 && slots.length > 0; attempt += 1) {
      const broken = slots[Math.floor(rng() * slots.length)]?.();
      if (broken) return broken;
    }
    return undefined;
  }

  function acceptsAsText(schema: Schema, text: string): boolean {
    const resolved = space.resolve(schema);
    const type = Array.isArray(resolved.type) ? resolved.type[0] : resolved.type;
    if (type === 'integer' || type === 'number') {
      if (!/^-?\d+(\.\d+)?$/.test(text)) return false;
      return oracle.accepts(schema, Number(text));
    }
    if (type === 'boolean') return text === 'true' || text === 'false';
    return oracle.accepts(schema, text);
  }
});

/** A page's query without its position: the pages a cursor may continue. */
function cursorKey(op: DocOperation, path: string, query: Record<string, unknown>): string {
  const { cursor: _cursor, limit: _limit, ...rest } = query;
  return `${op.id} ${path} ${JSON.stringify(Object.entries(rest).sort())}`;
}

/** The other path parameters of `template` as the valid request had them. */
function fillPath(broken: string, valid: string, template: string): string {
  const names = [...template.matchAll(/\{(\w+)\}/g)].map((match) => match[1] as string);
  const validParts = valid.split('/');
  const templateParts = template.split('/');
  const brokenParts = broken.split('/');
  for (const name of names) {
    const at = templateParts.indexOf(`{${name}}`);
    if (brokenParts[at] === `{${name}}`) brokenParts[at] = validParts[at] as string;
  }
  return brokenParts.join('/');
}

function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
