/** Announces a completed action; the shell shows it as a toast (the `sb-toast` event). */
export function toast(from: HTMLElement, message: string): void {
  from.dispatchEvent(new CustomEvent('sb-toast', { detail: { message }, bubbles: true, composed: true }));
}
