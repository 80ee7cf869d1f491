import { msg, str } from '@lit/localize';
import { html, type TemplateResult } from 'lit';
import { type CopyOutcome, copyText, legacyCopy } from './clipboard.js';

/**
 * Copies a secret shown once (an API key, the metrics token) with whatever this page can use,
 * and keeps focus on the button that asked: the legacy path moves it to a hidden textarea.
 */
export async function copyFromButton(text: string, event: Event): Promise<CopyOutcome> {
  const button = event.currentTarget as HTMLButtonElement | null;
  const outcome = await copyText(text, {
    clipboard: navigator.clipboard,
    legacyCopy: document.queryCommandSupported?.('copy') ? legacyCopy : undefined,
  });
  button?.focus();
  return outcome;
}

/**
 * What a copy did, for an `aria-live` status: `copied` on success; otherwise why not, and
 * `byHand` (how to copy the secret without the clipboard).
 */
export function copyFeedback(outcome: CopyOutcome | null, copied: string, byHand: string): TemplateResult | '' {
  if (!outcome) return '';
  if (outcome.ok) return html`<span class="copied">${copied}</span>`;
  const why =
    outcome.reason === 'unavailable'
      ? msg('This page has no clipboard access (browsers allow it only over HTTPS or on localhost).')
      : outcome.detail
        ? msg(str`The browser refused to copy (${outcome.detail}).`)
        : msg('The browser refused to copy.');
  return html`<span class="error">${msg('Not copied.')} ${why} ${byHand}</span>`;
}
