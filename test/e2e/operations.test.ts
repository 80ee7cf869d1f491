/**
 * The root endpoints of api-v1.md "Operations" through the real launcher (the Node front, the
 * asset layer and the worker): health and readiness without authentication, the console's page
 * for its own routes only and 404 JSON for every other path, and a Bearer challenge on a 401
 * from /mcp. Metrics: off until a token is made (with the CLI), scraped and read by a real
 * Prometheus text parser.
 */
import { readFileSync } from 'node:fs';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../client/errors.js';
import { runCli, tempConfig } from './cli-process.js';
import { adminLogin, api, createAgent, createHost, errorCode, ROOT, type Server, startServer } from './harness.js';

let server: Server;

beforeAll(async () => {
  server = await startServer();
});

afterAll(async () => {
  await server?.stop();
});

const root = (method: string, path: string, headers?: Record<string, string>) =>
  api(server, method, path, { absolutePath: true, headers });

describe('operations endpoints', () => {
  it('answers /healthz and /readyz without authentication', async () => {
    const health = await root('GET', '/healthz');
    expect(health.status).toBe(200);
    expect(health.body).toEqual({ status: 'ok' });
    const ready = await root('GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ready' });
  });

  it('serves the console for its routes and 404 JSON for every other path', async () => {
    for (const path of ['/', '/setup', '/hosts', '/channels/dm_x', '/agents/agt_x', '/favicon.ico']) {
      const res = await root('GET', path);
      expect(res.status, path).toBe(200);
    }
    expect((await root('GET', '/settings')).text).toContain('<title>Switchboard</title>');
    for (const path of [
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-protected-resource/mcp',
      '/.well-known/oauth-authorization-server',
      '/.well-known/openid-configuration',
      '/register',
      '/authorize',
      '/token',
      '/no/such/page',
      '/hosts/extra',
    ]) {
      for (const method of ['GET', 'POST']) {
        const res = await root(method, path);
        expect(res.status, `${method} ${path}`).toBe(404);
        expect(res.headers['content-type'], path).toContain('application/json');
        expect(errorCode(res), path).toBe('not_found');
        // Where an MCP client looks for OAuth after a 401, the answer says why it came.
        const oauth = !path.startsWith('/no/') && path !== '/hosts/extra';
        expect(res.body.error.reason, path).toBe(oauth ? 'no_oauth' : undefined);
        expect(res.body.error.message, path).toMatch(oauth ? /does not use OAuth.*401 unauthenticated/ : /^No route/);
      }
    }
  });

  it('challenges with a bare Bearer on a 401 from /mcp', async () => {
    const res = await api(server, 'POST', '/mcp', {
      absolutePath: true,
      key: 'sb_not_a_key',
      headers: { accept: 'application/json, text/event-stream' },
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    });
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer');
    expect(errorCode(res)).toBe('unauthenticated');
  });
});

describe('metrics', () => {
  const scrape = (token?: string) =>
    api(server, 'GET', '/metrics', { absolutePath: true, headers: token ? { authorization: `Bearer ${token}` } : {} });

  it('is off until an administrator creates a token, then answers only that token', async () => {
    const off = await scrape();
    expect(off.status).toBe(404);
    expect(errorCode(off)).toBe('not_found');

    const config = tempConfig();
    const env = { SWITCHBOARD_CONFIG: config };
    expect((await runCli(['login', '--url', server.url], { env })).code).toBe(EXIT.ok);
    const login = await runCli(['admin', 'login', '--username', 'admin', '--password-stdin'], {
      env,
      input: `${server.adminPassword}\n`,
    });
    expect(login.code, login.stderr).toBe(EXIT.ok);
    const created = await runCli(['admin', 'metrics-token', 'create'], { env });
    expect(created.code, created.stderr).toBe(EXIT.ok);
    const token = created.json.token as string;
    expect(token).toMatch(/^sbm_/);

    for (const presented of [undefined, 'sbm_wrong', token.slice(0, -1)]) {
      const refused = await scrape(presented);
      expect(refused.status).toBe(401);
      expect(errorCode(refused)).toBe('unauthenticated');
      expect(refused.headers['www-authenticate']).toBe('Bearer');
    }

    // Traffic to count: a send, a claim extended and released, a claim ACKed, and a refused request.
    const cookie = await adminLogin(server);
    const host = await createHost(server, cookie, ['127.0.0.1']);
    const alice = await createAgent(server, cookie, host.host_id);
    const bob = await createAgent(server, cookie, host.host_id);
    const revoked = await createAgent(server, cookie, host.host_id);
    expect((await api(server, 'DELETE', `/admin/agents/${revoked.agent.agent_id}/key`, { cookie })).status).toBe(200);
    const sent = await api(server, 'POST', '/messages/direct', {
      key: alice.key,
      body: { to_agent_ids: [bob.agent.agent_id], body: 'counted' },
    });
    expect(sent.status, sent.text).toBe(200);
    const first = (await api(server, 'POST', '/inbox/claim', { key: bob.key, body: {} })).body.claims[0];
    const lease = { items: [{ message_id: first.message.message_id, claim_token: first.claim_token }] };
    const extended = await api(server, 'POST', '/inbox/extend', { key: bob.key, body: lease });
    expect(extended.body.results[0].status).toBe('extended');
    const released = await api(server, 'POST', '/inbox/release', { key: bob.key, body: lease });
    expect(released.body.results[0].status).toBe('released');
    const claimed = await api(server, 'POST', '/inbox/claim', { key: bob.key, body: {} });
    expect(claimed.body.claims).toHaveLength(1);
    const [claim] = claimed.body.claims;
    const acked = await api(server, 'POST', '/inbox/ack', {
      key: bob.key,
      body: { acks: [{ message_id: claim.message.message_id, claim_token: claim.claim_token }] },
    });
    expect(acked.body.results[0].status).toBe('read');
    expect((await api(server, 'GET', '/me', { key: 'sb_not_a_key' })).status).toBe(401);
    // The revoked key, twice: refusals the agent's object counts exactly.
    for (let i = 0; i < 2; i++) expect((await api(server, 'GET', '/me', { key: revoked.key })).status).toBe(401);
    // A backlog: two unread for carol, one of them leased.
    const carol = await createAgent(server, cookie, host.host_id);
    for (const body of ['waiting 1', 'waiting 2']) {
      const queued = await api(server, 'POST', '/messages/direct', {
        key: alice.key,
        body: { to_agent_ids: [carol.agent.agent_id], body },
      });
      expect(queued.status, queued.text).toBe(200);
    }
    expect(
      (await api(server, 'POST', '/inbox/claim', { key: carol.key, body: { limit: 1 } })).body.claims,
    ).toHaveLength(1);

    // The channels report claims and ACKs to the catalog within about 5 s, the refusals reach the
    // registry after their agent's object wrote them: scrape until the figures arrive.
    const gauges = (text: string) =>
      Object.fromEntries(
        parsePrometheusTextFormat(text)
          .filter((f) => f.name === 'switchboard_deliveries' || f.name === 'switchboard_agent_refusals_total')
          .flatMap((f) => f.metrics.map((m) => [`${f.name}:${Object.values(m.labels ?? {}).join()}`, Number(m.value)])),
      );
    await expect
      .poll(async () => gauges((await scrape(token)).text), { timeout: 30_000, interval: 500 })
      .toEqual({
        'switchboard_deliveries:unread': 2,
        'switchboard_deliveries:leased': 1,
        'switchboard_deliveries:parked': 0,
        'switchboard_agent_refusals_total:wrong_key': 0,
        'switchboard_agent_refusals_total:key_revoked': 2,
        'switchboard_agent_refusals_total:agent_disabled': 0,
        'switchboard_agent_refusals_total:wrong_address': 0,
      });

    const res = await scrape(token);
    expect(res.status, res.text).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    const families = parsePrometheusTextFormat(res.text);
    const family = (name: string) => {
      const found = families.find((f) => f.name === name);
      if (!found) throw new Error(`no ${name} in ${families.map((f) => f.name).join(', ')}`);
      return found;
    };
    const value = (name: string, labels: Record<string, string> = {}) =>
      Number(
        family(name).metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v))?.value ?? 'NaN',
      );
    for (const f of families) expect(f.name).toMatch(/^switchboard_/);

    const { version } = JSON.parse(readFileSync(`${ROOT}/package.json`, 'utf8')) as { version: string };
    expect(value('switchboard_build_info', { version })).toBe(1);
    expect(value('switchboard_messages_sent_total')).toBeGreaterThanOrEqual(1);
    expect(value('switchboard_claims_total')).toBeGreaterThanOrEqual(1);
    expect(value('switchboard_acks_total')).toBeGreaterThanOrEqual(1);
    expect(value('switchboard_extends_total')).toBeGreaterThanOrEqual(1);
    expect(value('switchboard_releases_total')).toBeGreaterThanOrEqual(1);
    expect(value('switchboard_refused_requests_total', { code: 'unauthenticated' })).toBeGreaterThanOrEqual(1);
    expect(
      value('switchboard_http_requests_total', { method: 'POST', route: '/api/v1/messages/direct', status: '2xx' }),
    ).toBeGreaterThanOrEqual(1);
    expect(value('switchboard_http_requests_total', { route: '/api/v1/me', status: '4xx' })).toBeGreaterThanOrEqual(1);
    // Unknown paths share one label: the label set stays bounded whatever clients ask for.
    expect(
      family('switchboard_http_requests_total').metrics.some((m) => m.labels?.route?.includes('.well-known')),
    ).toBe(false);
    const duration = family('switchboard_http_request_duration_seconds');
    expect(duration.type).toBe('HISTOGRAM');
    // The parser merges a labelled histogram's series into one (it keeps the buckets only), so the
    // per-route series are read from the text it accepted.
    expect(duration.metrics[0]?.buckets?.['+Inf']).toBeDefined();
    const sendCount =
      /^switchboard_http_request_duration_seconds_count\{method="POST",route="\/api\/v1\/messages\/direct"\} (\d+)$/m.exec(
        res.text,
      );
    expect(Number(sendCount?.[1])).toBeGreaterThanOrEqual(1);
    expect(value('switchboard_agents', { key_status: 'active', enabled: 'true' })).toBeGreaterThanOrEqual(2);
    expect(value('switchboard_agents', { key_status: 'revoked' })).toBeGreaterThanOrEqual(1);
    expect(value('switchboard_cleanup_jobs', { state: 'pending' })).toBe(0);
    expect(value('switchboard_cleanup_jobs', { state: 'failed' })).toBe(0);

    // A new token replaces the old one; deleting it turns metrics off.
    const replaced = await runCli(['admin', 'metrics-token', 'create'], { env });
    expect((await scrape(token)).status).toBe(401);
    expect((await scrape(replaced.json.token)).status).toBe(200);
    const deleted = await runCli(['admin', 'metrics-token', 'delete'], { env });
    expect(deleted.code, deleted.stderr).toBe(EXIT.ok);
    expect((await scrape(replaced.json.token)).status).toBe(404);
  });
});
