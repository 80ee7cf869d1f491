/**
 * The root endpoints of api-v1.md "Operations" inside workerd, as Cloudflare runs the bundle:
 * health and readiness, 404 JSON for every path that is no console page, and the Bearer
 * challenge on a 401 from /mcp. Through the real launcher and its assets: test/e2e/operations.test.ts.
 */
import { SELF } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { isConsolePage } from '../../core/domain/console-pages.js';

const ORIGIN = 'https://switchboard.test';
const get = (path: string, init?: RequestInit) =>
  SELF.fetch(ORIGIN + path, { ...init, headers: { 'cf-connecting-ip': '10.0.0.1', ...init?.headers } });

describe('operations endpoints', () => {
  it('answers /healthz without authentication and /readyz once storage answers', async () => {
    const health = await get('/healthz');
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    const ready = await get('/readyz');
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready' });
  });

  it('answers 404 JSON for paths that are not console pages', async () => {
    for (const path of [
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-authorization-server',
      '/.well-known/openid-configuration',
      '/register',
      '/authorize',
      '/token',
      '/no/such/page',
      '/hosts/extra',
      '/channels/a/b',
    ]) {
      const response = await get(path);
      expect(response.status, path).toBe(404);
      expect(response.headers.get('content-type'), path).toContain('application/json');
      const body = (await response.json()) as { request_id: string; error: { code: string } };
      expect(body.error.code, path).toBe('not_found');
      expect(body.request_id, path).toMatch(/^req_/);
    }
  });

  it('knows the console routes', () => {
    for (const path of ['/', '/setup', '/hosts', '/settings/', '/channels/dm_x', '/agents/agt_1', '/audit']) {
      expect(isConsolePage(path), path).toBe(true);
    }
    for (const path of ['/register', '/.well-known/x', '/hosts/x', '/agents/a/b', '/setupx', '//']) {
      expect(isConsolePage(path), path).toBe(false);
    }
  });

  it('challenges with a bare Bearer on a 401 from /mcp', async () => {
    for (const authorization of [undefined, 'Bearer sb_wrong']) {
      const response = await get('/mcp', {
        method: 'POST',
        headers: {
          ...(authorization && { authorization }),
          accept: 'application/json, text/event-stream',
          'content-type': 'application/json',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer');
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('unauthenticated');
    }
  });
});
