import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configPath, maskKey, normalizeUrl, readConfig, resolveProfile, updateProfile } from '../../client/config.js';
import { LocalError } from '../../client/errors.js';

const temp = () => mkdtempSync(join(tmpdir(), 'sb-config-'));

describe('config file location', () => {
  it('SWITCHBOARD_CONFIG wins, then XDG_CONFIG_HOME, then ~/.config; %APPDATA% on Windows', () => {
    expect(configPath({ SWITCHBOARD_CONFIG: '/x/c.json', XDG_CONFIG_HOME: '/xdg' }, 'linux')).toBe('/x/c.json');
    expect(configPath({ XDG_CONFIG_HOME: '/xdg', HOME: '/home/a' }, 'linux')).toBe('/xdg/switchboard/config.json');
    expect(configPath({ HOME: '/home/a' }, 'darwin')).toBe('/home/a/.config/switchboard/config.json');
    expect(configPath({ APPDATA: 'C:\\Users\\a\\AppData\\Roaming' }, 'win32')).toMatch(
      /Roaming.switchboard.config\.json$/,
    );
  });
});

describe('profiles', () => {
  it('writes the file with mode 0600 and keeps other profiles', () => {
    const path = join(temp(), 'nested', 'config.json');
    updateProfile(path, 'codex', { url: 'http://a:1', api_key: 'sbk_agt_a.secret' });
    updateProfile(path, 'claude', { url: 'http://a:1', api_key: 'sbk_agt_b.secret' });
    if (process.platform !== 'win32') {
      expect(statSync(path).mode & 0o777).toBe(0o600);
      expect(statSync(join(path, '..')).mode & 0o777).toBe(0o700);
    }
    const file = readConfig(path);
    expect(file.current).toBe('codex');
    expect(Object.keys(file.profiles)).toEqual(['codex', 'claude']);
    updateProfile(path, 'claude', { admin_cookie: 'switchboard_session=t' });
    updateProfile(path, 'claude', { admin_cookie: undefined });
    expect(readConfig(path).profiles.claude).toEqual({ url: 'http://a:1', api_key: 'sbk_agt_b.secret' });
  });

  it('precedence: --profile > SWITCHBOARD_PROFILE > current; env URL/key override the profile', () => {
    const path = join(temp(), 'config.json');
    updateProfile(path, 'one', { url: 'http://one:1', api_key: 'k1' });
    updateProfile(path, 'two', { url: 'http://two:2', api_key: 'k2' });
    const env = { SWITCHBOARD_CONFIG: path };
    expect(resolveProfile(undefined, env)).toMatchObject({ profileName: 'one', url: 'http://one:1', apiKey: 'k1' });
    expect(resolveProfile(undefined, { ...env, SWITCHBOARD_PROFILE: 'two' }).apiKey).toBe('k2');
    expect(resolveProfile('one', { ...env, SWITCHBOARD_PROFILE: 'two' }).apiKey).toBe('k1');
    const overridden = resolveProfile(undefined, {
      ...env,
      SWITCHBOARD_URL: 'http://env:3',
      SWITCHBOARD_API_KEY: 'k3',
    });
    expect(overridden).toMatchObject({ url: 'http://env:3', apiKey: 'k3', sources: { url: 'env', apiKey: 'env' } });
  });

  it('an explicit profile is never overridden in silence by an inherited URL or key', () => {
    const path = join(temp(), 'config.json');
    updateProfile(path, 'claude', { url: 'http://one:1', api_key: 'k-claude' });
    updateProfile(path, 'admin', { url: 'http://one:1' });
    const inherited = { SWITCHBOARD_CONFIG: path, SWITCHBOARD_URL: 'http://one:1/', SWITCHBOARD_API_KEY: 'k-other' };
    // The flag wins, and says which variable it overrode.
    expect(resolveProfile('claude', inherited)).toMatchObject({
      apiKey: 'k-claude',
      sources: { url: 'profile', apiKey: 'profile' },
      ignored: ['SWITCHBOARD_API_KEY'],
    });
    expect(resolveProfile('claude', { ...inherited, SWITCHBOARD_URL: 'http://two:2' })).toMatchObject({
      url: 'http://one:1',
      ignored: ['SWITCHBOARD_URL', 'SWITCHBOARD_API_KEY'],
    });
    // Two environment variables that disagree: refused, naming both.
    const both = { ...inherited, SWITCHBOARD_PROFILE: 'claude' };
    expect(() => resolveProfile(undefined, both)).toThrow(LocalError);
    expect(() => resolveProfile(undefined, both)).toThrow(
      /SWITCHBOARD_PROFILE=claude and SWITCHBOARD_API_KEY disagree/,
    );
    expect(() =>
      resolveProfile(undefined, {
        SWITCHBOARD_CONFIG: path,
        SWITCHBOARD_PROFILE: 'claude',
        SWITCHBOARD_URL: 'http://x:9',
      }),
    ).toThrow(/SWITCHBOARD_PROFILE=claude and SWITCHBOARD_URL disagree/);
    // The same values are no disagreement (a trailing slash included); a value the profile lacks is filled in.
    expect(resolveProfile(undefined, { ...both, SWITCHBOARD_API_KEY: 'k-claude' })).toMatchObject({
      apiKey: 'k-claude',
      ignored: [],
    });
    expect(resolveProfile(undefined, { ...inherited, SWITCHBOARD_PROFILE: 'admin' })).toMatchObject({
      url: 'http://one:1',
      apiKey: 'k-other',
      sources: { url: 'profile', apiKey: 'env' },
    });
    // The flag also wins over a disagreeing SWITCHBOARD_PROFILE pair.
    expect(resolveProfile('claude', both).apiKey).toBe('k-claude');
    // Without an explicit profile the variables override the current one, as documented.
    expect(resolveProfile(undefined, inherited)).toMatchObject({ apiKey: 'k-other', sources: { apiKey: 'env' } });
    // An explicit profile that is not stored: the variables are the connection.
    expect(resolveProfile('fresh', inherited)).toMatchObject({ stored: false, apiKey: 'k-other', ignored: [] });
  });

  it('works from the environment alone, and names an unknown profile clearly', () => {
    const env = {
      SWITCHBOARD_CONFIG: join(temp(), 'none.json'),
      SWITCHBOARD_URL: 'http://e:1',
      SWITCHBOARD_API_KEY: 'k',
    };
    expect(resolveProfile(undefined, env)).toMatchObject({ profileName: 'default', stored: false, url: 'http://e:1' });
    const path = join(temp(), 'config.json');
    updateProfile(path, 'one', { url: 'http://one:1' });
    expect(() => resolveProfile('nope', { SWITCHBOARD_CONFIG: path })).toThrow(/no profile "nope".*profiles: one/);
  });

  it('reports a broken config file as a config error, not a crash', () => {
    const path = join(temp(), 'config.json');
    writeFileSync(path, '{ not json');
    expect(() => readConfig(path)).toThrow(LocalError);
    expect(() => readConfig(path)).toThrow(/not valid JSON/);
    writeFileSync(path, JSON.stringify({ profiles: { a: { api_key: 'k' } } }));
    expect(() => readConfig(path)).toThrow(/needs a "url"/);
  });

  it('masks keys and normalizes URLs', () => {
    const key = 'sbk_agt_7fq2cd.abcdefghijklmnopqrstuvwxyz012345678901234567';
    expect(maskKey(key)).toBe('sbk_agt_7fq2cd.…(44 chars hidden)');
    expect(maskKey(key)).not.toContain('abcdef');
    expect(normalizeUrl('http://127.0.0.1:8787/')).toBe('http://127.0.0.1:8787');
    expect(() => normalizeUrl('ftp://x')).toThrow(/http/);
    expect(() => normalizeUrl('not a url')).toThrow(/not a URL/);
  });

  it('writes nothing else next to the file (atomic rename)', () => {
    const dir = temp();
    const path = join(dir, 'config.json');
    updateProfile(path, 'a', { url: 'http://a:1' });
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ profiles: { a: { url: 'http://a:1' } }, current: 'a' });
  });
});
