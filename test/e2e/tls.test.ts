/**
 * HTTPS with --tls-cert/--tls-key: the ready line says https, the API works over TLS, the
 * session cookie is Secure, and the client address is still the TCP peer. Only forward-secret
 * AEAD suites are offered, every answer carries HSTS, and plain HTTP on the TLS port gets a 400.
 */
import { execFileSync } from 'node:child_process';
import http from 'node:http';
import https from 'node:https';
import { join } from 'node:path';
import tls from 'node:tls';
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

it('answers plain HTTP on the TLS port with a clear 400, not an empty reply', async () => {
  const outcome = await new Promise<{ status: number | undefined; body: string }>((resolve, reject) => {
    const request = http.get({ host: '127.0.0.1', port: server.port, path: '/api/v1/limits' }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (text: string) => {
        body += text;
      });
      res.on('end', () => resolve({ status: res.statusCode, body }));
    });
    request.on('error', reject);
    request.setTimeout(5000, () => request.destroy(new Error('timeout')));
  });
  expect(outcome.status).toBe(400);
  expect(JSON.parse(outcome.body).error).toMatchObject({
    code: 'validation_failed',
    message: expect.stringMatching(/https:\/\//),
  });
});

it('sends HSTS on the worker’s answers and on the front’s own', async () => {
  const limits = await api(server, 'GET', '/limits');
  expect(limits.headers['strict-transport-security']).toMatch(/^max-age=\d{7,}/);
  // An absolute-form target is refused by the front itself.
  const front = await new Promise<http.IncomingMessage>((resolve, reject) => {
    https
      .get({ host: '127.0.0.1', port: server.port, path: 'http://elsewhere/', rejectUnauthorized: false }, resolve)
      .on('error', reject);
  });
  front.resume();
  expect(front.statusCode).toBe(400);
  expect(front.headers['x-request-id']).toMatch(/^req_/);
  expect(front.headers['strict-transport-security']).toMatch(/^max-age=\d{7,}/);
});

/** Whether a handshake with only these client settings succeeds, and what was agreed. */
function handshake(options: tls.ConnectionOptions): Promise<string> {
  return new Promise((resolve) => {
    const socket = tls.connect({ host: '127.0.0.1', port: server.port, rejectUnauthorized: false, ...options }, () => {
      const agreed = `${socket.getProtocol()} ${socket.getCipher().standardName}`;
      socket.destroy();
      resolve(agreed);
    });
    socket.on('error', (error) => resolve(`refused: ${(error as NodeJS.ErrnoException).code}`));
  });
}

it('offers only forward-secret AEAD suites: TLS 1.3, and TLS 1.2 with ECDHE and GCM or ChaCha20', async () => {
  expect(await handshake({})).toMatch(/^TLSv1\.3 TLS_/);
  const tls12 = { minVersion: 'TLSv1.2', maxVersion: 'TLSv1.2' } as const;
  expect(await handshake({ ...tls12, ciphers: 'ECDHE-RSA-AES128-GCM-SHA256' })).toBe(
    'TLSv1.2 TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256',
  );
  expect(await handshake({ ...tls12, ciphers: 'ECDHE-RSA-AES256-GCM-SHA384' })).toMatch(/^TLSv1\.2 /);
  expect(await handshake({ ...tls12, ciphers: 'ECDHE-RSA-CHACHA20-POLY1305' })).toMatch(/^TLSv1\.2 /);
  // Static RSA key exchange (no forward secrecy), CBC with SHA-1 or SHA-256, and old versions.
  for (const ciphers of ['AES128-GCM-SHA256', 'AES256-SHA', 'ECDHE-RSA-AES128-SHA', 'ECDHE-RSA-AES128-SHA256']) {
    expect(await handshake({ ...tls12, ciphers: `${ciphers}@SECLEVEL=0` }), ciphers).toMatch(/^refused/);
  }
  expect(await handshake({ minVersion: 'TLSv1', maxVersion: 'TLSv1.1', ciphers: 'DEFAULT@SECLEVEL=0' })).toMatch(
    /^refused/,
  );
});
