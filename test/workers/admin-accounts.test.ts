import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { ADMIN, adminCookie, call } from './helpers.js';

const registry = () => env.REGISTRY.get(env.REGISTRY.idFromName('registry'));
const SECOND = { username: 'second.admin', password: 'a second long passphrase' };

async function signIn(credentials: { username: string; password: string }, userAgent = 'test-agent/1') {
  const res = await call('POST', '/admin/login', { body: credentials, headers: { 'user-agent': userAgent } });
  const cookie = res.headers.get('set-cookie')?.split(';')[0];
  return { status: res.status, body: res.body, cookie: cookie ?? '' };
}

async function withSecondAdmin() {
  const first = await adminCookie();
  const created = await call('POST', '/admin/admins', { cookie: first, body: SECOND });
  expect(created.status).toBe(201);
  return first;
}

describe('administrator accounts', () => {
  it('creates and lists a second administrator, who can sign in; the existing admin is the first account', async () => {
    const first = await withSecondAdmin();
    const list = await call('GET', '/admin/admins', { cookie: first });
    expect(list.status).toBe(200);
    expect(list.body.admins.map((a: { username: string }) => a.username)).toEqual([ADMIN.username, SECOND.username]);
    expect(list.body.admins.every((a: { enabled: boolean }) => a.enabled)).toBe(true);
    expect(JSON.stringify(list.body)).not.toContain(SECOND.password);
    const second = await signIn(SECOND);
    expect(second.status).toBe(200);
    expect(second.body.username).toBe(SECOND.username);
  });

  it('refuses a duplicate name and a short password, storing nothing', async () => {
    const first = await withSecondAdmin();
    const duplicate = await call('POST', '/admin/admins', { cookie: first, body: SECOND });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.error.code).toBe('conflict');
    const short = await call('POST', '/admin/admins', { cookie: first, body: { username: 'x', password: 'short' } });
    expect(short.status).toBe(400);
    expect(short.body.error.field).toBe('password');
    const bad = await call('POST', '/admin/admins', {
      cookie: first,
      body: { username: 'has space', password: 'long enough password' },
    });
    expect(bad.body.error.field).toBe('username');
    expect((await call('GET', '/admin/admins', { cookie: first })).body.admins).toHaveLength(2);
  });

  it('never disables or deletes the last enabled administrator, themselves included', async () => {
    const first = await adminCookie();
    const disable = await call('PATCH', `/admin/admins/${ADMIN.username}`, { cookie: first, body: { enabled: false } });
    expect(disable.status).toBe(409);
    expect(disable.body.error.code).toBe('conflict');
    const remove = await call('DELETE', `/admin/admins/${ADMIN.username}`, { cookie: first });
    expect(remove.status).toBe(409);
    expect((await call('GET', '/admin/session', { cookie: first })).status).toBe(200);
    expect((await call('DELETE', '/admin/admins/nobody', { cookie: first })).status).toBe(404);
  });

  it('disabling ends the sessions at once and refuses sign-in; enabling lets it back', async () => {
    const first = await withSecondAdmin();
    const second = await signIn(SECOND);
    const off = await call('PATCH', `/admin/admins/${SECOND.username}`, { cookie: first, body: { enabled: false } });
    expect(off.status).toBe(200);
    expect(off.body.admin.enabled).toBe(false);
    expect((await call('GET', '/admin/session', { cookie: second.cookie })).status).toBe(401);
    const refused = await signIn(SECOND);
    expect(refused.status).toBe(401);
    expect(refused.body.error.message).toMatch(/disabled/);
    await call('PATCH', `/admin/admins/${SECOND.username}`, { cookie: first, body: { enabled: true } });
    expect((await signIn(SECOND)).status).toBe(200);
  });

  it('an administrator may delete themselves while another remains, and is signed out', async () => {
    await withSecondAdmin();
    const second = await signIn(SECOND);
    const res = await call('DELETE', `/admin/admins/${SECOND.username}`, { cookie: second.cookie });
    expect(res.status).toBe(200);
    expect((await call('GET', '/admin/session', { cookie: second.cookie })).status).toBe(401);
    expect((await signIn(SECOND)).status).toBe(401);
  });
});

describe('password change', () => {
  it('needs the current password, ends the other sessions and keeps this one', async () => {
    const first = await adminCookie();
    const other = await signIn(ADMIN);
    const wrong = await call('POST', '/admin/password', {
      cookie: first,
      body: { current_password: 'not the password', new_password: 'a brand new passphrase' },
    });
    expect(wrong.status).toBe(403);
    expect(wrong.body.error.field).toBe('current_password');
    expect((await signIn(ADMIN)).status).toBe(200); // unchanged

    const short = await call('POST', '/admin/password', {
      cookie: first,
      body: { current_password: ADMIN.password, new_password: 'short' },
    });
    expect(short.status).toBe(400);
    expect(short.body.error.field).toBe('new_password');

    const changed = await call('POST', '/admin/password', {
      cookie: first,
      body: { current_password: ADMIN.password, new_password: 'a brand new passphrase' },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.ended_sessions).toBe(2);
    expect((await call('GET', '/admin/session', { cookie: first })).status).toBe(200);
    expect((await call('GET', '/admin/session', { cookie: other.cookie })).status).toBe(401);
    expect((await signIn(ADMIN)).status).toBe(401);
    expect((await signIn({ ...ADMIN, password: 'a brand new passphrase' })).status).toBe(200);
  });

  it('can keep the other sessions when asked', async () => {
    const first = await adminCookie();
    const other = await signIn(ADMIN);
    const changed = await call('POST', '/admin/password', {
      cookie: first,
      body: { current_password: ADMIN.password, new_password: 'a brand new passphrase', end_other_sessions: false },
    });
    expect(changed.body.ended_sessions).toBe(0);
    expect((await call('GET', '/admin/session', { cookie: other.cookie })).status).toBe(200);
  });

  it('throttles guessing the current password like sign-in', async () => {
    const first = await adminCookie();
    let last = 0;
    for (let i = 0; i < 8 && last !== 429; i++) {
      last = (
        await call('POST', '/admin/password', {
          cookie: first,
          body: { current_password: `guess ${i}`, new_password: 'a brand new passphrase' },
        })
      ).status;
    }
    expect(last).toBe(429);
  });
});

describe('administrator sessions', () => {
  it('lists live sessions with address and user agent, never the token, and ends another one', async () => {
    const first = await withSecondAdmin();
    const second = await signIn(SECOND, 'Second Browser/2.0');
    const list = await call('GET', `/admin/sessions?username=${SECOND.username}`, { cookie: first });
    expect(list.status).toBe(200);
    expect(list.body.sessions).toHaveLength(1);
    const [session] = list.body.sessions;
    expect(session).toMatchObject({
      username: SECOND.username,
      client_address: '10.0.0.1',
      user_agent: 'Second Browser/2.0',
      current: false,
    });
    expect(session.session_id).toMatch(/^ses_[0-9a-f]{24}$/);
    const token = second.cookie.split('=')[1] as string;
    expect(JSON.stringify(list.body)).not.toContain(token);
    const all = await call('GET', '/admin/sessions', { cookie: first });
    expect(all.body.sessions.filter((s: { current: boolean }) => s.current)).toHaveLength(1);

    const ended = await call('DELETE', `/admin/sessions/${session.session_id}`, { cookie: first });
    expect(ended.body).toEqual({ ok: true, signed_out: false });
    expect((await call('GET', '/admin/session', { cookie: second.cookie })).status).toBe(401);
    expect((await call('DELETE', `/admin/sessions/${session.session_id}`, { cookie: first })).status).toBe(404);
    expect((await call('GET', '/admin/session', { cookie: first })).status).toBe(200);
  });

  it('ending your own session signs you out', async () => {
    const first = await adminCookie();
    const mine = (await call('GET', '/admin/sessions', { cookie: first })).body.sessions.find(
      (s: { current: boolean }) => s.current,
    );
    const res = await call('DELETE', `/admin/sessions/${mine.session_id}`, { cookie: first });
    expect(res.body.signed_out).toBe(true);
    expect(res.headers.get('set-cookie')).toMatch(/switchboard_session=;/);
    expect((await call('GET', '/admin/session', { cookie: first })).status).toBe(401);
  });

  it('keeps sign-in by username working for the existing first administrator', async () => {
    await registry().bootstrapAdmin(ADMIN.username, ADMIN.password);
    expect((await signIn(ADMIN)).status).toBe(200);
  });
});
