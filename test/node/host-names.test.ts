import { describe, expect, it } from 'vitest';
import { answersTo, hostnameOf, parseHostList } from '../../core/lib/host-names.js';

describe('host names the server answers to', () => {
  it('reads a Host header: port, brackets, case, a trailing dot, canonical addresses', () => {
    expect(hostnameOf('Example.COM.:8787')).toBe('example.com');
    expect(hostnameOf('[::1]:8787')).toBe('::1');
    expect(hostnameOf('[0:0::1]')).toBe('::1');
    for (const bad of ['', ':80', 'a:b', 'a:1:2', '[::1', '[::1]x', 'host:99999999'])
      expect(hostnameOf(bad), bad).toBeNull();
  });

  it('takes loopback names always, listed names only when there is a list, and everything without one', () => {
    const list = parseHostList('switchboard.test, 192.0.2.7 [2001:db8::1]');
    expect(list).toEqual(['switchboard.test', '192.0.2.7', '2001:db8::1']);
    for (const ok of [
      'localhost:1',
      'a.localhost',
      '127.0.0.9:80',
      '[::1]:80',
      'SWITCHBOARD.test:443',
      '[2001:db8:0::1]',
    ]) {
      expect(answersTo(ok, list), ok).toBe(true);
    }
    for (const no of ['evil.example', 'switchboard.test.evil.example', '192.0.2.8', 'localhost.evil', undefined]) {
      expect(answersTo(no, list), String(no)).toBe(false);
    }
    expect(answersTo('evil.example', undefined)).toBe(true);
  });
});
