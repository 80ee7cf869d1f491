/**
 * The Hosts list's search and sort. The page holds every host (a fleet has a few machines, each
 * with many agents), so both run here, and both live in the address (`/hosts?q=gpu&sort=agents:desc`).
 */
import { queryString } from './list-address.js';

export const HOST_SORTS = ['name:asc', 'name:desc', 'agents:desc', 'agents:asc'] as const;
export type HostSort = (typeof HOST_SORTS)[number];

export interface HostView {
  /** Words that must all appear in a host's name, addresses, operating system, description or ID. */
  q: string;
  sort: HostSort;
}

/** The longest search kept from an address (as long as the agent search). */
export const HOST_SEARCH_MAX = 200;

export const DEFAULT_HOST_VIEW: HostView = { q: '', sort: 'name:asc' };

export interface ListedHost {
  host_id: string;
  name: string;
  addresses: readonly string[];
  os: string;
  description: string;
  agent_count: number;
}

export function hostViewToSearch(view: HostView): string {
  return queryString({
    q: view.q.trim(),
    sort: view.sort === DEFAULT_HOST_VIEW.sort ? undefined : view.sort,
  });
}

/** Reads the view back from the address; anything it did not write falls back to the default. */
export function hostViewFromSearch(search: string): HostView {
  const params = new URLSearchParams(search);
  const sort = params.get('sort');
  return {
    q: (params.get('q') ?? '').slice(0, HOST_SEARCH_MAX),
    sort: HOST_SORTS.includes(sort as HostSort) ? (sort as HostSort) : DEFAULT_HOST_VIEW.sort,
  };
}

const words = (text: string) => text.toLocaleLowerCase().split(/\s+/).filter(Boolean);

/**
 * The hosts that match every word of the search, in the chosen order. `hosts` come as the server
 * lists them, by name: that order is kept for ties, so the name sorts never disagree with it.
 */
export function showHosts<H extends ListedHost>(hosts: readonly H[], view: HostView): H[] {
  const wanted = words(view.q);
  const matches = hosts.filter((h) => {
    if (wanted.length === 0) return true;
    const text = [h.name, ...h.addresses, h.os, h.description, h.host_id].join('\n').toLocaleLowerCase();
    return wanted.every((w) => text.includes(w));
  });
  switch (view.sort) {
    case 'name:asc':
      return matches;
    case 'name:desc':
      return matches.reverse();
    case 'agents:desc':
      return matches.sort((a, b) => b.agent_count - a.agent_count);
    case 'agents:asc':
      return matches.sort((a, b) => a.agent_count - b.agent_count);
  }
}
