import type { ReactiveController, ReactiveControllerHost } from 'lit';

/**
 * Every list's state (search, filters, sort) lives in its page's address, so a reload or a copied
 * link shows the same list, and Back and Forward step through the views the administrator chose.
 * Each list turns its state into a query string and back (pure functions in lib/, tested in
 * test/ui/); this is the one place that writes the address and hears it change.
 */

/** The mark of the history entries written by typing in a search box, with the burst's number. */
const TYPED = 'sbListTyped';
/** The burst of typing that wrote the current entry; none after Back or Forward (a new burst). */
let burst = 0;
let typing: number | null = null;
if (typeof window !== 'undefined') {
  window.addEventListener('popstate', () => {
    typing = null;
  });
}

/**
 * Shows `search` ('' or '?…') in the address of the current page. A chosen filter or sort is a
 * new history entry (Back undoes it); typing a search is one entry for the whole burst of typing,
 * not one per pause. Writes nothing when the address says so already.
 */
export function writeListAddress(search: string, options: { typed?: boolean } = {}): void {
  const query = search === '?' ? '' : search;
  if (query === location.search) return;
  const address = `${location.pathname}${query}`;
  const current = (history.state as Record<string, unknown> | null)?.[TYPED];
  if (options.typed && typing !== null && current === typing) {
    history.replaceState({ [TYPED]: typing }, '', address);
    return;
  }
  typing = options.typed ? ++burst : null;
  history.pushState(typing === null ? null : { [TYPED]: typing }, '', address);
}

/** A query string from the values that differ from their defaults ('' when none does). */
export function queryString(values: Record<string, string | undefined>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(values)) if (value) params.set(key, value);
  const text = params.toString();
  return text ? `?${text}` : '';
}

/**
 * Hears the address change under a list (Back, Forward, a console link to the same page) and
 * hands the list its new query string, while the list is on the page at `path`.
 */
export class ListAddress implements ReactiveController {
  private readonly onPopState = () => {
    if (location.pathname === this.path) this.changed(location.search);
  };

  constructor(
    host: ReactiveControllerHost,
    private readonly path: string,
    private readonly changed: (search: string) => void,
  ) {
    host.addController(this);
  }

  hostConnected(): void {
    window.addEventListener('popstate', this.onPopState);
  }

  hostDisconnected(): void {
    window.removeEventListener('popstate', this.onPopState);
  }

  /** Shows the list's new state in the address (writeListAddress). */
  write(search: string, options: { typed?: boolean } = {}): void {
    writeListAddress(search, options);
  }
}
