import { describe, expect, it } from 'vitest';
import { buildPath, buildQuery } from '../../admin-ui/src/api.js';
import { agentPath, PAGES, parseRoute, pathFor } from '../../admin-ui/src/lib/route.js';

describe('console routes', () => {
  it('reads the launcher one-time link with the token in the fragment', () => {
    expect(parseRoute('/setup', '#token=abc_DEF-123')).toEqual({ kind: 'setup', token: 'abc_DEF-123' });
    expect(parseRoute('/setup', '')).toEqual({ kind: 'setup', token: null });
    expect(parseRoute('/setup/', '#token=')).toEqual({ kind: 'setup', token: null });
  });

  it('maps every page to a path and back; unknown paths show the overview', () => {
    for (const page of PAGES) expect(parseRoute(pathFor(page), '')).toEqual({ kind: 'page', page });
    expect(parseRoute('/nope', '')).toEqual({ kind: 'page', page: 'overview' });
    expect(pathFor('overview')).toBe('/');
  });

  it('carries a channel id in the path, escaped', () => {
    expect(pathFor('channels', 'dm_a/b')).toBe('/channels/dm_a%2Fb');
    expect(parseRoute('/channels/dm_a%2Fb', '')).toEqual({ kind: 'page', page: 'channels', channelId: 'dm_a/b' });
  });

  it('carries an agent id in the path, escaped, under the Agents page', () => {
    expect(agentPath('agt_a/b')).toBe('/agents/agt_a%2Fb');
    expect(parseRoute('/agents/agt_a%2Fb', '')).toEqual({ kind: 'page', page: 'agents', agentId: 'agt_a/b' });
    expect(parseRoute('/agents', '')).toEqual({ kind: 'page', page: 'agents' });
  });
});

describe('API request building', () => {
  it('fills path parameters, escaped, and refuses a missing one', () => {
    expect(buildPath('/admin/hosts/{host_id}', { host_id: 'hst_1' })).toBe('/admin/hosts/hst_1');
    expect(buildPath('/admin/channels/{channel_id}/messages', { channel_id: 'a/b?c' })).toBe(
      '/admin/channels/a%2Fb%3Fc/messages',
    );
    expect(() => buildPath('/admin/hosts/{host_id}', {})).toThrow(/host_id/);
  });

  it('drops empty query values and escapes the rest', () => {
    expect(buildQuery({ cursor: undefined, limit: 50, q: '', host_id: null })).toBe('?limit=50');
    expect(buildQuery({ q: 'a b&c=d' })).toBe('?q=a+b%26c%3Dd');
    expect(buildQuery(undefined)).toBe('');
  });
});
