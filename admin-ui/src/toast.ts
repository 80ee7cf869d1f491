/** The event every view dispatches to announce a completed action; sb-app shows it as a toast. */
export const TOAST_EVENT = 'sb-toast';

export function toast(from: EventTarget, message: string): void {
  from.dispatchEvent(new CustomEvent(TOAST_EVENT, { detail: { message }, bubbles: true, composed: true }));
}
