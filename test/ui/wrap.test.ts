import { describe, expect, it } from 'vitest';
import { addressPieces, nameClass } from '../../admin-ui/src/lib/wrap.js';

describe('how names and addresses wrap', () => {
  it('keeps short names whole and lets long ones break', () => {
    expect(nameClass('build-box')).toBe('nobreak');
    expect(nameClass(`agent-${'q'.repeat(50)}`)).toBe('token');
  });

  it('breaks a long IPv6 address only after its colons, never an IPv4 one', () => {
    expect(addressPieces('192.168.100.200')).toEqual(['192.168.100.200']);
    expect(addressPieces('::1')).toEqual(['::1']);
    expect(addressPieces('2001:0db8:85a3:0000:0000:8a2e:0370:7334')).toEqual([
      '2001:',
      '0db8:',
      '85a3:',
      '0000:',
      '0000:',
      '8a2e:',
      '0370:',
      '7334',
    ]);
  });
});
