/**
 * The client address is the TCP peer of the public listener, whatever the client's headers say,
 * and Miniflare's own loopback port serves nothing to a caller that bypasses the front.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminLogin, api, createAgent, createHost, errorCode, type Server, startServer } from './harness.js';

let server: Server;
let cookie: string;
/** An agent whose host lists only 127.0.0.1. */
let onlyLoopback1: string;
/** An agent whose host lists 127.0.0.1 and 127.0.0.2. */
let both: string;

beforeAll(async () => {
  server = await startServer();
  cookie = await adminLogin(server);
  const host1 = await createHost(server, cookie, ['127.0.0.1']);
  onlyLoopback1 = (await createAgent(server, cookie, host1.host_id)).key;
  const host2 = await createHost(server, cookie, ['127.0.0.1', '127.0.0.2']);
  both = (await createAgent(server, cookie, host2.host_id)).key;
});

afterAll(async () => {
  await server?.stop();
});

const SPOOFS: Record<string, Record<string, string>> = {
  'CF-Connecting-IP': { 'CF-Connecting-IP': '127.0.0.1' },
  'X-Forwarded-For': { 'X-Forwarded-For': '127.0.0.1' },
  'X-Real-IP': { 'X-Real-IP': '127.0.0.1' },
  'True-Client-IP': { 'True-Client-IP': '127.0.0.1' },
  'MF-CF-Blob': { 'MF-CF-Blob': JSON.stringify({ clientIp: '127.0.0.1' }) },
  Forwarded: { Forwarded: 'for=127.0.0.1' },
  'all at once': {
    'CF-Connecting-IP': '127.0.0.1',
    'X-Forwarded-For': '127.0.0.1, 127.0.0.1',
    'X-Real-IP': '127.0.0.1',
    'True-Client-IP': '127.0.0.1',
    'MF-CF-Blob': JSON.stringify({ clientIp: '127.0.0.1' }),
    'MF-Original-URL': 'http://127.0.0.1/api/v1/me',
  },
};

describe('an agent whose host lists only 127.0.0.1', () => {
  it('is served from 127.0.0.1', async () => {
    const res = await api(server, 'GET', '/me', { key: onlyLoopback1, localAddress: '127.0.0.1' });
    expect(res.status).toBe(200);
  });

  it('is denied from 127.0.0.2', async () => {
    const res = await api(server, 'GET', '/me', { key: onlyLoopback1, localAddress: '127.0.0.2' });
    expect(res.status).toBe(403);
    expect(errorCode(res)).toBe('source_ip_denied');
  });

  for (const [name, headers] of Object.entries(SPOOFS)) {
    it(`is denied from 127.0.0.2 even with ${name}`, async () => {
      const res = await api(server, 'GET', '/me', { key: onlyLoopback1, localAddress: '127.0.0.2', headers });
      expect(res.status).toBe(403);
      expect(errorCode(res)).toBe('source_ip_denied');
    });
  }
});

describe('an agent whose host lists 127.0.0.1 and 127.0.0.2', () => {
  it('is served from both addresses', async () => {
    for (const localAddress of ['127.0.0.1', '127.0.0.2']) {
      const res = await api(server, 'GET', '/me', { key: both, localAddress });
      expect(res.status, localAddress).toBe(200);
    }
  });

  it('is denied from 127.0.0.3', async () => {
    const res = await api(server, 'GET', '/me', { key: both, localAddress: '127.0.0.3' });
    expect(res.status).toBe(403);
    expect(errorCode(res)).toBe('source_ip_denied');
  });
});

describe("Miniflare's loopback port", () => {
  it('is not the public port and listens on loopback', () => {
    const internal = new URL(server.internalUrl);
    expect(internal.hostname).toBe('127.0.0.1');
    expect(Number(internal.port)).not.toBe(server.port);
  });

  it('refuses a request that bypasses the front, even with a forged CF-Connecting-IP', async () => {
    const res = await api(server, 'GET', '/me', {
      baseUrl: server.internalUrl,
      key: onlyLoopback1,
      headers: { 'CF-Connecting-IP': '127.0.0.1' },
    });
    expect(res.status).toBe(403);
    expect(errorCode(res)).toBe('forbidden');
  });

  it('refuses a guessed front secret', async () => {
    const res = await api(server, 'GET', '/me', {
      baseUrl: server.internalUrl,
      key: onlyLoopback1,
      headers: { 'CF-Connecting-IP': '127.0.0.1', 'X-Switchboard-Front': 'guess' },
    });
    expect(res.status).toBe(403);
    expect(errorCode(res)).toBe('forbidden');
  });

  it('refuses administrator sign-in', async () => {
    const res = await api(server, 'POST', '/admin/login', {
      baseUrl: server.internalUrl,
      body: { username: 'admin', password: server.adminPassword },
    });
    expect(res.status).toBe(403);
    expect(res.headers['set-cookie']).toBeUndefined();
  });

  it('does not learn the front secret from a client that sends its own', async () => {
    // A client copy of the secret header is replaced, never forwarded: the request still works.
    const res = await api(server, 'GET', '/me', { key: both, headers: { 'X-Switchboard-Front': 'forged' } });
    expect(res.status).toBe(200);
  });
});

describe('the public URL the worker sees', () => {
  it('cannot be steered by MF-Original-URL: no Secure cookie over plain HTTP', async () => {
    const res = await api(server, 'POST', '/admin/login', {
      body: { username: 'admin', password: server.adminPassword },
      headers: { 'MF-Original-URL': 'https://elsewhere.example/api/v1/admin/login' },
    });
    expect(res.status).toBe(200);
    const cookieLine = res.headers['set-cookie']?.find((c) => c.startsWith('switchboard_session=')) ?? '';
    expect(cookieLine).not.toMatch(/;\s*Secure/i);
  });

  it('keeps same-origin writes working for the console and refuses a foreign Origin', async () => {
    const body = { name: 'origin-check', addresses: ['192.0.2.10'] };
    const own = await api(server, 'POST', '/admin/hosts', { cookie, body, headers: { Origin: server.url } });
    expect(own.status).toBe(201);
    const foreign = await api(server, 'POST', '/admin/hosts', {
      cookie,
      body: { ...body, name: 'origin-check-2' },
      headers: { Origin: 'http://evil.example' },
    });
    expect(foreign.status).toBe(403);
    expect(errorCode(foreign)).toBe('forbidden');
  });
});
