import { CONSOLE_PAGES } from '../../../core/domain/console-pages.js';

/** The console's pages; each has its own path so a reload or a bookmark lands on it. */
export const PAGES = CONSOLE_PAGES;
export type Page = (typeof PAGES)[number];

export type Route =
  | { kind: 'page'; page: Page; channelId?: string; agentId?: string }
  | { kind: 'setup'; token: string | null };

/**
 * Reads the location. The launcher's one-time link is `/setup#token=…`: the token sits in the
 * fragment so it never reaches a server log or a Referer header.
 */
export function parseRoute(pathname: string, hash: string): Route {
  const segments = pathname.split('/').filter(Boolean);
  const [first, second] = segments;
  if (first === 'setup') {
    const token = new URLSearchParams(hash.replace(/^#/, '')).get('token');
    return { kind: 'setup', token: token || null };
  }
  if (first === 'channels' && second) return { kind: 'page', page: 'channels', channelId: decodeURIComponent(second) };
  if (first === 'agents' && second) return { kind: 'page', page: 'agents', agentId: decodeURIComponent(second) };
  const page = PAGES.find((p) => p === first);
  return { kind: 'page', page: page ?? 'overview' };
}

export function pathFor(page: Page, channelId?: string): string {
  if (page === 'channels' && channelId) return `/channels/${encodeURIComponent(channelId)}`;
  return page === 'overview' ? '/' : `/${page}`;
}

/** One agent's page (sb-agent-page), under the Agents list. */
export function agentPath(agentId: string): string {
  return `/agents/${encodeURIComponent(agentId)}`;
}
