import { localized, msg, str } from '@lit/localize';
import { css, html, LitElement } from 'lit';
import { customElement, query, state } from 'lit/decorators.js';
import { icons } from '../icons.js';
import { type CopyOutcome, copyText, legacyCopy } from '../lib/clipboard.js';
import { shared } from '../styles/shared.js';
import type { SbDialog } from './sb-dialog.js';
import './sb-dialog.js';

/**
 * Shows a newly issued API key, once (REQ-09, REQ-57). The key is forgotten when the dialog
 * closes; the copy button says whether the clipboard really took it.
 */
@localized()
@customElement('sb-key-dialog')
export class SbKeyDialog extends LitElement {
  static override styles = [
    shared,
    css`
      .key {
        display: block;
        padding: 0.6rem;
        border: 1px dashed var(--sb-border-strong);
        border-radius: 6px;
        background: var(--sb-surface);
        margin: 0.75rem 0;
        user-select: all;
      }
      [role='status'] {
        min-height: 1.5rem;
        margin: 0.5rem 0;
      }
      .copied {
        color: var(--sb-ok);
      }
    `,
  ];

  @state() private apiKey = '';
  @state() private agentName = '';
  @state() private outcome: CopyOutcome | null = null;
  @query('sb-dialog') private dialog!: SbDialog;

  async showKey(agentName: string, apiKey: string): Promise<void> {
    this.agentName = agentName;
    this.apiKey = apiKey;
    this.outcome = null;
    await this.updateComplete;
    await this.dialog.show();
  }

  private async copy(): Promise<void> {
    this.outcome = null;
    // Keep the selection and focus on the button: the legacy path moves focus to a textarea.
    const button = this.renderRoot.querySelector<HTMLButtonElement>('button.primary');
    this.outcome = await copyText(this.apiKey, {
      clipboard: navigator.clipboard,
      legacyCopy: document.queryCommandSupported?.('copy') ? legacyCopy : undefined,
    });
    button?.focus();
  }

  private forget(): void {
    this.apiKey = '';
    this.outcome = null;
  }

  private feedback() {
    if (!this.outcome) return '';
    if (this.outcome.ok) return html`<span class="copied">${msg('Copied to the clipboard.')}</span>`;
    const why =
      this.outcome.reason === 'unavailable'
        ? msg('This page has no clipboard access (browsers allow it only over HTTPS or on localhost).')
        : this.outcome.detail
          ? msg(str`The browser refused to copy (${this.outcome.detail}).`)
          : msg('The browser refused to copy.');
    return html`<span class="error">${msg('Not copied.')} ${why} ${msg('Select the key and copy it by hand.')}</span>`;
  }

  override render() {
    return html`<sb-dialog heading=${msg('New API key')} @sb-close=${this.forget}>
      <p>${msg(str`The API key for ${this.agentName}. It is shown only this once: store it now.`)}</p>
      <code class="key mono token" data-testid="api-key">${this.apiKey}</code>
      <div class="actions">
        <button type="button" class="primary" autofocus @click=${this.copy}>${icons.copy} ${msg('Copy key')}</button>
        <button type="button" @click=${() => this.dialog.close()}>${msg('Done')}</button>
      </div>
      <div role="status" aria-live="polite">${this.feedback()}</div>
    </sb-dialog>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'sb-key-dialog': SbKeyDialog;
  }
}
