/**
 * Follows a link inside the console without reloading the page: the address changes and the shell
 * (sb-app), which listens for popstate, shows the page. Modified clicks (new tab, new window) are
 * left to the browser.
 */
export function followLink(event: MouseEvent, path: string): void {
  if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  event.preventDefault();
  history.pushState(null, '', path);
  window.dispatchEvent(new PopStateEvent('popstate'));
}

/** The Channels list's last address (with its filters), for the message view's way back. */
let channelListAddress: string | null = null;

export function rememberChannelList(address: string): void {
  channelListAddress = address;
}

export function channelListPath(fallback: string): string {
  return channelListAddress ?? fallback;
}
