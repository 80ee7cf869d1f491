import { describe, expect, it } from 'vitest';
import { sharedAddresses } from '../../admin-ui/src/lib/shared-addresses.js';

const hosts = [
  { host_id: 'hst_a', name: 'alpha', addresses: ['10.0.0.5', '2001:db8::1'] },
  { host_id: 'hst_b', name: 'beta', addresses: ['10.0.0.6'] },
];

describe('sharedAddresses (the host dialog warning)', () => {
  it('finds addresses another host has, in canonical form, once each', () => {
    expect(sharedAddresses(['::ffff:10.0.0.5', ' 10.0.0.5 ', '2001:DB8:0::1', '10.0.0.7'], hosts, null)).toEqual([
      { address: '10.0.0.5', host: 'alpha' },
      { address: '2001:db8::1', host: 'alpha' },
    ]);
  });

  it('ignores the host being edited, and text that is not an address yet', () => {
    expect(sharedAddresses(['10.0.0.5', '10.0.0.'], hosts, 'hst_a')).toEqual([]);
    expect(sharedAddresses(['10.0.0.6'], hosts, 'hst_a')).toEqual([{ address: '10.0.0.6', host: 'beta' }]);
  });
});
