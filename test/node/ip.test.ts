/**
 * The canonical address form the host allowlist compares (core/lib/ip.ts). The vectors marked
 * "ipaddr.js" are where that library (2.5.0, evaluated for issue 11) answers differently; they
 * pin the reasons the module stays hand-written.
 */
import { describe, expect, it } from 'vitest';
import { canonicalIp } from '../../core/lib/ip.js';

describe('canonicalIp', () => {
  it('writes IPv4 and IPv6 in one canonical form', () => {
    expect(canonicalIp(' 192.168.1.10 ')).toBe('192.168.1.10');
    expect(canonicalIp('[::1]')).toBe('::1');
    expect(canonicalIp('2001:DB8:0:0:0:0:0:1')).toBe('2001:db8::1');
    expect(canonicalIp('1:0:0:1:0:0:0:1')).toBe('1:0:0:1::1');
    expect(canonicalIp('0:0:1:0:0:1:0:0')).toBe('::1:0:0:1:0:0');
    expect(canonicalIp('1:2:3:4:5:6:7::')).toBe('1:2:3:4:5:6:7:0');
    expect(canonicalIp('64:ff9b::1.2.3.4')).toBe('64:ff9b::102:304');
  });

  it('reads an IPv4-mapped IPv6 address as the IPv4 address it carries', () => {
    expect(canonicalIp('::ffff:10.0.0.2')).toBe('10.0.0.2');
    expect(canonicalIp('::FFFF:a00:2')).toBe('10.0.0.2');
  });

  it('keeps an IPv4-compatible address (::a.b.c.d) a distinct IPv6 address (ipaddr.js maps it)', () => {
    expect(canonicalIp('::1.2.3.4')).toBe('::102:304');
  });

  it('refuses leading zeros and hex in any dotted quad, embedded ones too (ipaddr.js accepts embedded)', () => {
    for (const text of ['010.0.0.1', '0x7f.0.0.1', '::ffff:010.2.3.4', '::ffff:0x1.2.3.4', '::ffff:1.2.3.04']) {
      expect(canonicalIp(text), text).toBeNull();
    }
  });

  it('refuses what is not one exact address', () => {
    for (const text of [
      '',
      '[]',
      '127.1',
      '1.2.3',
      '256.1.1.1',
      '１.2.3.4',
      'host.example',
      '::1%eth0',
      'fe80::1%25eth0',
      '1.2.3.4/32',
      '2001:db8::1/64',
      '1::2::3',
      '1.2.3.4::',
      '00001::1',
      '1:2:3:4:5:6:7:8:9',
      '1::2:3:4:5:6:7:8',
    ]) {
      expect(canonicalIp(text), text).toBeNull();
    }
  });
});
