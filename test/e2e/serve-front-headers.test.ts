/** Unit tests (plain Node, no server) for what the front forwards to Miniflare and back. */
import { describe, expect, it } from 'vitest';
import { forwardRequestHeaders, forwardResponseHeaders, peerAddress } from '../../server/front-headers.js';

const context = {
  remoteAddress: '::ffff:10.1.2.3',
  secret: 'front-secret',
  host: 'switchboard.example:8787',
  originalUrl: 'https://switchboard.example:8787/api/v1/me',
};

describe('peerAddress', () => {
  it('unwraps IPv4-mapped IPv6 and keeps everything else', () => {
    expect(peerAddress('::ffff:127.0.0.1')).toBe('127.0.0.1');
    expect(peerAddress('::FFFF:192.0.2.1')).toBe('192.0.2.1');
    expect(peerAddress('127.0.0.2')).toBe('127.0.0.2');
    expect(peerAddress('::1')).toBe('::1');
    expect(peerAddress('2001:db8::ffff:1.2.3.4')).toBe('2001:db8::ffff:1.2.3.4');
    expect(peerAddress(undefined)).toBe('');
  });
});

describe('forwardRequestHeaders', () => {
  const forwarded = forwardRequestHeaders(
    {
      host: 'switchboard.example:8787',
      authorization: 'Bearer k',
      'content-type': 'application/json',
      'content-length': '12',
      cookie: 'a=b',
      origin: 'https://switchboard.example:8787',
      'cf-connecting-ip': '127.0.0.1',
      'cf-ipcountry': 'XX',
      'x-forwarded-for': '127.0.0.1',
      'x-real-ip': '127.0.0.1',
      'true-client-ip': '127.0.0.1',
      forwarded: 'for=127.0.0.1',
      'x-forwarded-host': 'elsewhere',
      'x-forwarded-proto': 'https',
      'mf-cf-blob': '{"clientIp":"127.0.0.1"}',
      'mf-original-url': 'http://elsewhere/',
      'mf-route-override': 'x',
      'x-switchboard-front': 'guess',
      connection: 'keep-alive, x-hop',
      'keep-alive': 'timeout=5',
      'x-hop': 'only for this hop',
      expect: '100-continue',
      upgrade: 'websocket',
    },
    context,
  );

  it('sets the client address from the TCP peer and adds the secret', () => {
    expect(forwarded['cf-connecting-ip']).toBe('10.1.2.3');
    expect(forwarded['x-switchboard-front']).toBe('front-secret');
  });

  it('drops every client copy of an address or Miniflare header', () => {
    for (const name of [
      'cf-ipcountry',
      'x-forwarded-for',
      'x-real-ip',
      'true-client-ip',
      'forwarded',
      'x-forwarded-host',
      'x-forwarded-proto',
      'mf-cf-blob',
      'mf-route-override',
    ]) {
      expect(forwarded, name).not.toHaveProperty(name);
    }
  });

  it('tells Miniflare the public URL and keeps the public Host', () => {
    expect(forwarded['mf-original-url']).toBe(context.originalUrl);
    expect(forwarded.host).toBe('switchboard.example:8787');
    expect(forwarded['mf-disable-pretty-error']).toBe('true');
  });

  it('drops hop-by-hop headers, including the ones Connection names', () => {
    for (const name of ['connection', 'keep-alive', 'x-hop', 'expect', 'upgrade']) {
      expect(forwarded, name).not.toHaveProperty(name);
    }
  });

  it('keeps the end-to-end headers', () => {
    expect(forwarded).toMatchObject({
      authorization: 'Bearer k',
      'content-type': 'application/json',
      'content-length': '12',
      cookie: 'a=b',
      origin: 'https://switchboard.example:8787',
    });
  });
});

describe('forwardResponseHeaders', () => {
  it('keeps repeated headers, drops framing, hop-by-hop and Miniflare headers', () => {
    const pairs = forwardResponseHeaders([
      'Content-Type',
      'application/json',
      'Set-Cookie',
      'a=1',
      'Set-Cookie',
      'b=2',
      'Transfer-Encoding',
      'chunked',
      'Connection',
      'keep-alive, X-Internal',
      'X-Internal',
      'x',
      'MF-Experimental-Error-Stack',
      'true',
      'X-Request-Id',
      'req_1',
    ]);
    expect(pairs).toEqual([
      ['Content-Type', 'application/json'],
      ['Set-Cookie', 'a=1'],
      ['Set-Cookie', 'b=2'],
      ['X-Request-Id', 'req_1'],
    ]);
  });
});
