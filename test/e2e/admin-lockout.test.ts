/**
 * Sign-in throttling through the real front, where the source address is the TCP peer and cannot
 * be forged with headers: a guesser locks out only itself, never the administrator elsewhere.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, type Server, startServer } from './harness.js';

let server: Server;

beforeAll(async () => {
  server = await startServer();
});

afterAll(async () => {
  await server?.stop();
});

const login = (password: string, localAddress: string, headers: Record<string, string> = {}) =>
  api(server, 'POST', '/admin/login', { body: { username: 'admin', password }, localAddress, headers });

describe('administrator lockout', () => {
  it('refuses the guessing address, even with the right password, and lets the administrator in elsewhere', async () => {
    for (let i = 0; i < 5; i++) expect((await login('wrong password', '127.0.0.2')).status).toBe(401);
    const locked = await login(server.adminPassword as string, '127.0.0.2');
    expect(locked.status).toBe(429);
    expect(locked.body.error.code).toBe('too_many_attempts');
    // A forged forwarding header does not move the guesser to another address.
    const forged = await login(server.adminPassword as string, '127.0.0.2', { 'x-forwarded-for': '127.0.0.3' });
    expect(forged.status).toBe(429);

    const admin = await login(server.adminPassword as string, '127.0.0.1');
    expect(admin.status).toBe(200);
    expect(String(admin.headers['set-cookie'])).toMatch(/HttpOnly/i);
  });
});
