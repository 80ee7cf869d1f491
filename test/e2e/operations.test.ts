/**
 * The root endpoints of api-v1.md "Operations" through the real launcher (the Node front, the
 * asset layer and the worker): health and readiness without authentication, the console's page
 * for its own routes only and 404 JSON for every other path, and a Bearer challenge on a 401
 * from /mcp.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, errorCode, type Server, startServer } from './harness.js';

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
      '/no/such/page',
      '/hosts/extra',
    ]) {
      for (const method of ['GET', 'POST']) {
        const res = await root(method, path);
        expect(res.status, `${method} ${path}`).toBe(404);
        expect(res.headers['content-type'], path).toContain('application/json');
        expect(errorCode(res), path).toBe('not_found');
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
