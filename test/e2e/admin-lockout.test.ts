/**
 * Sign-in throttling through the real front, where the source address is the TCP peer and cannot
 * be forged with headers: a guesser locks out only itself, never the administrator elsewhere.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminLogin, api, createHost, type Server, startServer } from './harness.js';

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

  it('survives a sign-in flood: the real entries stay, refusals are counted in a bounded number of rows', async () => {
    const cookie = await adminLogin(server);
    const host = await createHost(server, cookie, ['127.0.0.1']);
    const addresses = Array.from({ length: 24 }, (_, i) => `127.0.1.${i + 1}`);
    const statuses: number[] = [];
    // Parallel guessers from many addresses for a while (the throttle answers most with 429).
    const until = Date.now() + 15_000;
    await Promise.all(
      Array.from({ length: 8 }, async (_, worker) => {
        for (let i = 0; Date.now() < until; i++) {
          const localAddress = addresses[(worker * 3 + i) % addresses.length] as string;
          const username = i % 3 === 0 ? 'admin' : `guess-${worker}-${i}`;
          const res = await api(server, 'POST', '/admin/login', {
            body: { username, password: `wrong ${worker} ${i}` },
            localAddress,
          });
          statuses.push(res.status);
        }
      }),
    );
    expect(statuses.length).toBeGreaterThan(100);
    expect(statuses.every((s) => s === 401 || s === 429)).toBe(true);
    const refused = statuses.filter((s) => s === 401).length;

    const rows: { action: string; targets: string[]; outcome: string; count: number; client_address: string }[] = [];
    let cursor: string | null = null;
    do {
      const page = await api(server, 'GET', `/admin/audit?limit=100${cursor ? `&cursor=${cursor}` : ''}`, { cookie });
      expect(page.status).toBe(200);
      rows.push(...page.body.entries);
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(rows.find((r) => r.action === 'createHost')?.targets).toEqual([host.host_id]);
    expect(rows.filter((r) => r.action === 'adminLogin' && r.outcome === 'ok').length).toBeGreaterThan(0);
    const counted = rows.filter((r) => r.action === 'adminLogin' && r.outcome === 'unauthenticated');
    // At most one row per flooding address and account (this flood: the real account or none).
    expect(counted.filter((r) => r.client_address.startsWith('127.0.1.')).length).toBeLessThanOrEqual(
      addresses.length * 2,
    );
    expect(counted.filter((r) => r.client_address.startsWith('127.0.1.')).reduce((n, r) => n + r.count, 0)).toBe(
      refused,
    );
  });
});
