/**
 * The Hosts, Groups and Audit lists' state in their addresses: each round-trips through the query
 * string, and anything the console did not write falls back to the default without an error.
 */
import { describe, expect, it } from 'vitest';
import {
  auditFilterFromSearch,
  auditFilterToSearch,
  cleanAuditFilter,
  fromLocalInput,
  toLocalInput,
} from '../../admin-ui/src/lib/audit-filters.js';
import {
  EMPTY_GROUP_FILTERS,
  groupFiltersFromSearch,
  groupFiltersToSearch,
} from '../../admin-ui/src/lib/channel-filters.js';
import {
  DEFAULT_HOST_VIEW,
  HOST_SEARCH_MAX,
  HOST_SORTS,
  hostViewFromSearch,
  hostViewToSearch,
  showHosts,
} from '../../admin-ui/src/lib/host-list.js';

const host = (
  name: string,
  agent_count: number,
  extra: Partial<{ addresses: string[]; os: string; description: string }> = {},
) => ({
  host_id: `hst_${name}`,
  name,
  addresses: extra.addresses ?? ['192.0.2.1'],
  os: extra.os ?? 'linux',
  description: extra.description ?? '',
  agent_count,
});

describe('the Hosts list’s address', () => {
  it('round-trips the search and every sort, leaving defaults out', () => {
    for (const sort of HOST_SORTS) {
      const view = { q: 'gpu  lab', sort };
      expect(hostViewFromSearch(hostViewToSearch(view))).toEqual(view);
    }
    expect(hostViewToSearch(DEFAULT_HOST_VIEW)).toBe('');
    expect(hostViewToSearch({ q: '  ', sort: 'agents:desc' })).toBe('?sort=agents%3Adesc');
  });

  it('falls back to the default on anything it did not write', () => {
    expect(hostViewFromSearch('')).toEqual(DEFAULT_HOST_VIEW);
    expect(hostViewFromSearch('?sort=price&page=-1&q=')).toEqual(DEFAULT_HOST_VIEW);
    expect(hostViewFromSearch(`?q=${'x'.repeat(HOST_SEARCH_MAX + 50)}`).q).toHaveLength(HOST_SEARCH_MAX);
  });

  it('matches every word in a name, address, system or description, in any case and order', () => {
    const hosts = [
      host('alpha', 2, { addresses: ['10.0.0.1', '2001:db8::1'], description: 'GPU box in lab 3' }),
      host('beta', 0, { os: 'FreeBSD' }),
      host('gamma', 5),
    ];
    const names = (q: string) => showHosts(hosts, { q, sort: 'name:asc' }).map((h) => h.name);
    expect(names('')).toEqual(['alpha', 'beta', 'gamma']);
    expect(names('lab gpu')).toEqual(['alpha']);
    expect(names('2001:DB8')).toEqual(['alpha']);
    expect(names('freebsd')).toEqual(['beta']);
    expect(names('hst_gamma')).toEqual(['gamma']);
    expect(names('alpha beta')).toEqual([]);
  });

  it('sorts by name either way and by agent count, ties in the server’s (name) order', () => {
    const hosts = [host('a', 1), host('b', 3), host('c', 1), host('d', 0)];
    const order = (sort: (typeof HOST_SORTS)[number]) => showHosts(hosts, { q: '', sort }).map((h) => h.name);
    expect(order('name:asc')).toEqual(['a', 'b', 'c', 'd']);
    expect(order('name:desc')).toEqual(['d', 'c', 'b', 'a']);
    expect(order('agents:desc')).toEqual(['b', 'a', 'c', 'd']);
    expect(order('agents:asc')).toEqual(['d', 'a', 'c', 'b']);
    expect(hosts.map((h) => h.name)).toEqual(['a', 'b', 'c', 'd']);
  });
});

describe('the Groups list’s address', () => {
  it('round-trips the owner and member filters', () => {
    const filters = { owner: 'agt_alice', participant: 'agt_bob-2' };
    expect(groupFiltersToSearch(filters)).toBe('?owner=agt_alice&participant=agt_bob-2');
    expect(groupFiltersFromSearch(groupFiltersToSearch(filters))).toEqual(filters);
    expect(groupFiltersToSearch(EMPTY_GROUP_FILTERS)).toBe('');
  });

  it('takes only agent IDs from the address', () => {
    expect(groupFiltersFromSearch('?owner=alice&participant=agt_a,agt_b')).toEqual(EMPTY_GROUP_FILTERS);
    expect(groupFiltersFromSearch('?participant=%20agt_bob%20&owner=')).toEqual({ owner: '', participant: 'agt_bob' });
  });
});

describe('the Audit log’s address', () => {
  const filter = {
    admin: 'ops.team-2',
    action: 'deleteAgent',
    target: 'agt_7fq2cd',
    since: '2026-11-29T21:00:00.000Z',
    until: '2026-11-30T08:30:15.250Z',
  };

  it('round-trips every filter, times as UTC timestamps', () => {
    const search = auditFilterToSearch(filter);
    expect(new URLSearchParams(search).get('since')).toBe(filter.since);
    expect(auditFilterFromSearch(search)).toEqual(filter);
    expect(auditFilterToSearch({})).toBe('');
  });

  it('drops what the API would refuse or the form cannot show', () => {
    expect(
      auditFilterFromSearch('?admin=no%20spaces&action=rm%20-rf&target=&since=yesterday&until=2026-13-45T99:00:00Z'),
    ).toEqual({});
    expect(auditFilterFromSearch(`?target=${'x'.repeat(129)}&action=createAgent`)).toEqual({ action: 'createAgent' });
    expect(cleanAuditFilter({ admin: ' admin ', target: ' agt_x ' })).toEqual({ admin: 'admin', target: 'agt_x' });
  });

  it('reads other spellings of a time as the same instant', () => {
    expect(auditFilterFromSearch('?since=2026-11-29T22:00:00%2B01:00').since).toBe('2026-11-29T21:00:00.000Z');
  });

  it('shows the times in the browser’s zone in the form, and reads them back unchanged', () => {
    for (const at of [filter.since, filter.until, '2026-03-29T01:30:00.000Z']) {
      const local = toLocalInput(at);
      expect(local).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/);
      expect(fromLocalInput(local)).toBe(at);
    }
    expect(toLocalInput(undefined)).toBe('');
    expect(fromLocalInput('')).toBeUndefined();
    expect(fromLocalInput('2026-11-29')).toBeUndefined();
  });
});
