/** Unit tests (plain Node, no server) for `switchboard serve` settings. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, publicUrl, resolveConfig } from '../../server/config.js';

function configFile(text: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'sb-serve-config-')), 'switchboard.toml');
  writeFileSync(file, text);
  return file;
}

describe('resolveConfig', () => {
  it('defaults to 127.0.0.1:8787 and ./data', () => {
    expect(resolveConfig({}, {})).toEqual({
      host: '127.0.0.1',
      port: 8787,
      dataDir: resolve('data'),
      tls: undefined,
      adminPassword: undefined,
      logFormat: 'text',
    });
  });

  it('takes --log-format over SWITCHBOARD_LOG_FORMAT and refuses other formats', () => {
    expect(resolveConfig({}, { SWITCHBOARD_LOG_FORMAT: 'json' }).logFormat).toBe('json');
    expect(resolveConfig({ logFormat: 'text' }, { SWITCHBOARD_LOG_FORMAT: 'json' }).logFormat).toBe('text');
    expect(() => resolveConfig({ logFormat: 'yaml' }, {})).toThrow(/--log-format must be text or json/);
    expect(() => resolveConfig({}, { SWITCHBOARD_LOG_FORMAT: 'JSON' })).toThrow(/SWITCHBOARD_LOG_FORMAT/);
  });

  it('reads a --config TOML file: a flag wins over its variable, a variable over the file', () => {
    const file = configFile(
      'host = "0.0.0.0"\nport = 9100\ndata = "state"\ntls_cert = "c.pem"\ntls_key = "k.pem"\nlog_format = "json"\n',
    );
    const dir = join(file, '..');
    expect(resolveConfig({ config: file }, {})).toEqual({
      host: '0.0.0.0',
      port: 9100,
      // Relative to the file's folder, not the working directory.
      dataDir: join(dir, 'state'),
      tls: { certFile: join(dir, 'c.pem'), keyFile: join(dir, 'k.pem') },
      adminPassword: undefined,
      logFormat: 'json',
    });
    const env = { SWITCHBOARD_HOST: '::', SWITCHBOARD_PORT: '9200', SWITCHBOARD_LOG_FORMAT: 'text' };
    expect(resolveConfig({ config: file }, env)).toMatchObject({ host: '::', port: 9200, logFormat: 'text' });
    expect(resolveConfig({ config: file, host: '127.0.0.1', port: '0', data: 'd' }, env)).toMatchObject({
      host: '127.0.0.1',
      port: 0,
      dataDir: resolve('d'),
    });
    // TLS files come as a pair: the flags' pair replaces the file's.
    expect(resolveConfig({ config: file, tlsCert: 'x.pem', tlsKey: 'y.pem' }, {}).tls).toEqual({
      certFile: resolve('x.pem'),
      keyFile: resolve('y.pem'),
    });
  });

  it('refuses a --config file with an unknown key, a bad value or bad TOML, naming the problem', () => {
    const cases: [string, RegExp][] = [
      ['prot = 80\n', /unknown key "prot"/],
      ['[server]\nhost = "x"\n', /unknown key "server"/],
      ['port = "80"\n', /port must be a whole number/],
      ['port = 70000\n', /port in --config .* must be a port number/],
      ['port = 1.5\n', /port must be a whole number/],
      ['host = ""\n', /host must be a non-empty string/],
      ['data = 3\n', /data must be a non-empty string/],
      ['log_format = "xml"\n', /log_format in --config .* must be text or json/],
      ['tls_cert = "c.pem"\n', /both tls_cert and tls_key/],
      ['host = "a"\nhost = "b"\n', /not valid TOML \(line 2/],
      ['host = \n', /not valid TOML/],
    ];
    for (const [text, message] of cases) {
      expect(() => resolveConfig({ config: configFile(text) }, {}), text).toThrow(message);
      expect(() => resolveConfig({ config: configFile(text) }, {}), text).toThrow(ConfigError);
    }
    expect(() => resolveConfig({ config: '/nonexistent/switchboard.toml' }, {})).toThrow(/cannot read it \(ENOENT\)/);
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
