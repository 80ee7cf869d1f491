/**
 * The lists' addresses (lib/list-address.ts): a chosen filter is a history entry of its own, a
 * burst of typing is one, and Back hands the list the address it returns to. Run against a small
 * stand-in for the browser's history, location and window.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

class FakeBrowser extends EventTarget {
  entries: { state: unknown; url: URL }[] = [{ state: null, url: new URL('http://console.test/hosts') }];
  index = 0;
  readonly history = {
    pushState: (state: unknown, _: string, url: string) => {
      this.entries.splice(this.index + 1);
      this.entries.push({ state, url: new URL(url, this.current.url) });
      this.index++;
    },
    replaceState: (state: unknown, _: string, url: string) => {
      this.entries[this.index] = { state, url: new URL(url, this.current.url) };
    },
    get state(): unknown {
      return browser.current.state;
    },
  };
  readonly location = {
    get pathname() {
      return browser.current.url.pathname;
    },
    get search() {
      return browser.current.url.search;
    },
  };
  get current() {
    return this.entries[this.index] as { state: unknown; url: URL };
  }
  go(delta: number): void {
    this.index += delta;
    this.dispatchEvent(new Event('popstate'));
  }
  addresses(): string[] {
    return this.entries.map((e) => `${e.url.pathname}${e.url.search}`);
  }
}

const browser = new FakeBrowser();
let lib: typeof import('../../admin-ui/src/lib/list-address.js');

beforeAll(async () => {
  vi.stubGlobal('window', browser);
  vi.stubGlobal('history', browser.history);
  vi.stubGlobal('location', browser.location);
  lib = await import('../../admin-ui/src/lib/list-address.js');
});

afterAll(() => {
  vi.unstubAllGlobals();
});

describe('a list’s address', () => {
  it('builds a query string from the values that differ from their defaults', () => {
    expect(lib.queryString({ q: 'gpu box', sort: undefined, host: '' })).toBe('?q=gpu+box');
    expect(lib.queryString({ q: '' })).toBe('');
  });

  it('makes each chosen filter a history entry, a burst of typing one, and nothing for no change', () => {
    lib.writeListAddress('?sort=agents%3Adesc');
    lib.writeListAddress('?sort=agents%3Adesc');
    lib.writeListAddress('?sort=agents%3Adesc&q=g', { typed: true });
    lib.writeListAddress('?sort=agents%3Adesc&q=gp', { typed: true });
    lib.writeListAddress('?sort=agents%3Adesc&q=gpu', { typed: true });
    lib.writeListAddress('?q=gpu');
    expect(browser.addresses()).toEqual([
      '/hosts',
      '/hosts?sort=agents%3Adesc',
      '/hosts?sort=agents%3Adesc&q=gpu',
      '/hosts?q=gpu',
    ]);
  });

  it('hands the list the address Back and Forward return to, only on its own page', () => {
    const heard: string[] = [];
    const controllers: { hostConnected(): void; hostDisconnected(): void }[] = [];
    const host = { addController: (c: (typeof controllers)[number]) => controllers.push(c) };
    new lib.ListAddress(host as never, '/hosts', (search) => heard.push(search));
    controllers[0]?.hostConnected();
    browser.go(-1);
    browser.go(-1);
    browser.go(1);
    expect(heard).toEqual(['?sort=agents%3Adesc&q=gpu', '?sort=agents%3Adesc', '?sort=agents%3Adesc&q=gpu']);
    // Typing after Back starts a new entry rather than rewriting the one Back landed on.
    lib.writeListAddress('?sort=agents%3Adesc&q=gpu2', { typed: true });
    expect(browser.addresses()).toEqual([
      '/hosts',
      '/hosts?sort=agents%3Adesc',
      '/hosts?sort=agents%3Adesc&q=gpu',
      '/hosts?sort=agents%3Adesc&q=gpu2',
    ]);
    browser.history.pushState(null, '', '/agents?q=x');
    browser.dispatchEvent(new Event('popstate'));
    controllers[0]?.hostDisconnected();
    browser.go(-1);
    expect(heard).toHaveLength(3);
  });
});
