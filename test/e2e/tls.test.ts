/**
 * HTTPS with --tls-cert/--tls-key: the ready line says https, the API works over TLS, the
 * session cookie is Secure, and the client address is still the TCP peer.
 */
import { execFileSync } from 'node:child_process';
import http from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { adminLogin, api, createAgent, createHost, errorCode, type Server, startServer, tempDir } from './harness.js';

let server: Server;

/** A self-signed certificate for 127.0.0.1. openssl is a test prerequisite, not an option. */
function selfSignedCertificate(): { cert: string; key: string } {
  const dir = tempDir('switchboard-tls-');
  const cert = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        key,
        '-out',
        cert,
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
      ],
      { stdio: 'pipe' },
    );
  } catch (error) {
    throw new Error(
      `The TLS test needs openssl on PATH to make a self-signed certificate: ${(error as Error).message}`,
    );
  }
  return { cert, key };
}

beforeAll(async () => {
  const { cert, key } = selfSignedCertificate();
  server = await startServer({ args: ['--tls-cert', cert, '--tls-key', key] });
});

afterAll(async () => {
  await server?.stop();
});

it('prints an https ready line', () => {
  expect(server.url).toBe(`https://127.0.0.1:${server.port}`);
  expect(server.stdout()).toContain(`Switchboard listening on https://127.0.0.1:${server.port}\n`);
});

it('sets a Secure, HttpOnly, SameSite=Strict session cookie', async () => {
  const res = await api(server, 'POST', '/admin/login', {
    body: { username: 'admin', password: server.adminPassword },
  });
  expect(res.status).toBe(200);
  const cookie = res.headers['set-cookie']?.find((c) => c.startsWith('switchboard_session=')) ?? '';
  expect(cookie).toMatch(/;\s*Secure/i);
  expect(cookie).toMatch(/;\s*HttpOnly/i);
  expect(cookie).toMatch(/;\s*SameSite=Strict/i);
});

it('serves agents over TLS with the TCP peer as client address', async () => {
  const cookie = await adminLogin(server);
  const host = await createHost(server, cookie, ['127.0.0.1']);
  const { key } = await createAgent(server, cookie, host.host_id);
  expect((await api(server, 'GET', '/me', { key, localAddress: '127.0.0.1' })).status).toBe(200);
  const denied = await api(server, 'GET', '/me', {
    key,
    localAddress: '127.0.0.2',
    headers: { 'CF-Connecting-IP': '127.0.0.1', 'X-Forwarded-For': '127.0.0.1' },
  });
  expect(denied.status).toBe(403);
  expect(errorCode(denied)).toBe('source_ip_denied');
});

it('accepts same-origin console writes over https', async () => {
  const cookie = await adminLogin(server);
  const res = await api(server, 'POST', '/admin/hosts', {
    cookie,
    body: { name: 'tls-origin', addresses: ['192.0.2.44'] },
    headers: { Origin: server.url },
  });
  expect(res.status).toBe(201);
});

it('does not answer plain HTTP on the TLS port', async () => {
  const outcome = await new Promise<string>((resolve) => {
    const request = http.get({ host: '127.0.0.1', port: server.port, path: '/api/v1/limits' }, (res) => {
      res.resume();
      resolve(`status ${res.statusCode}`);
    });
    request.on('error', (error) => resolve(`error ${(error as NodeJS.ErrnoException).code}`));
    request.setTimeout(5000, () => request.destroy(new Error('timeout')));
  });
  expect(outcome).not.toMatch(/^status 2/);
});
