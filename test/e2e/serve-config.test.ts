/** Unit tests (plain Node, no server) for `switchboard serve` settings. */
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, publicUrl, resolveConfig } from '../../server/config.js';

describe('resolveConfig', () => {
  it('defaults to 127.0.0.1:8787 and ./data', () => {
    expect(resolveConfig({}, {})).toEqual({
      host: '127.0.0.1',
      port: 8787,
      dataDir: resolve('data'),
      tls: undefined,
      adminPassword: undefined,
    });
  });

  it('takes the environment, and a flag over the environment', () => {
    const env = { SWITCHBOARD_HOST: '0.0.0.0', SWITCHBOARD_PORT: '9000', SWITCHBOARD_DATA_DIR: '/var/lib/sb' };
    expect(resolveConfig({}, env)).toMatchObject({ host: '0.0.0.0', port: 9000, dataDir: '/var/lib/sb' });
    expect(resolveConfig({ host: '::', port: '0', data: '/srv/sb' }, env)).toMatchObject({
      host: '::',
      port: 0,
      dataDir: '/srv/sb',
    });
  });

  it('refuses ports outside 0..65535 and non-numbers', () => {
    for (const port of ['65536', '-1', '80a', '', '1e3']) {
      expect(() => resolveConfig({ port }, {}), port).toThrow(ConfigError);
    }
    expect(() => resolveConfig({}, { SWITCHBOARD_PORT: 'http' })).toThrow(/SWITCHBOARD_PORT/);
  });

  it('needs both TLS files', () => {
    expect(() => resolveConfig({ tlsCert: 'c.pem' }, {})).toThrow(/both --tls-cert/);
    expect(() => resolveConfig({ tlsKey: 'k.pem' }, {})).toThrow(/both --tls-cert/);
    expect(resolveConfig({ tlsCert: 'c.pem', tlsKey: 'k.pem' }, {}).tls).toEqual({
      certFile: resolve('c.pem'),
      keyFile: resolve('k.pem'),
    });
  });

  it('checks SWITCHBOARD_ADMIN_PASSWORD length before anything starts', () => {
    expect(() => resolveConfig({}, { SWITCHBOARD_ADMIN_PASSWORD: '12345678901' })).toThrow(/at least 12 characters/);
    expect(resolveConfig({}, { SWITCHBOARD_ADMIN_PASSWORD: '123456789012' }).adminPassword).toBe('123456789012');
    expect(() => resolveConfig({}, { SWITCHBOARD_ADMIN_PASSWORD: 'x'.repeat(1025) })).toThrow(/too long/);
    // Empty means unset: the setup link path.
    expect(resolveConfig({}, { SWITCHBOARD_ADMIN_PASSWORD: '' }).adminPassword).toBeUndefined();
  });
});

describe('publicUrl', () => {
  it('brackets IPv6 literals', () => {
    expect(publicUrl('127.0.0.1', 8787, false)).toBe('http://127.0.0.1:8787');
    expect(publicUrl('::', 443, true)).toBe('https://[::]:443');
    expect(publicUrl('::1', 1, false)).toBe('http://[::1]:1');
    expect(publicUrl('switchboard.example', 80, false)).toBe('http://switchboard.example:80');
  });
});
