import { localized, msg } from '@lit/localize';
import { css, html, LitElement } from 'lit';
import { customElement, property, query } from 'lit/decorators.js';
import { icons } from '../icons.js';
import { shared } from '../styles/shared.js';

/** The element that has focus, looking through shadow roots (the console is all components). */
function deepActiveElement(): HTMLElement | null {
  let active: Element | null = document.activeElement;
  while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
  return active instanceof HTMLElement ? active : null;
}

/**
 * A modal dialog over the native <dialog>: showModal() makes the rest of the page inert (so Tab
 * stays inside), Escape closes it, and focus goes back to whatever opened it.
 */
@localized()
@customElement('sb-dialog')
export class SbDialog extends LitElement {
  static override styles = [
    shared,
    css`
      dialog {
        border: 1px solid var(--sb-border);
        border-radius: 10px;
        background: var(--sb-bg);
        color: var(--sb-text);
        padding: 0;
        width: min(34rem, calc(100vw - 1.5rem));
        max-height: calc(100dvh - 1.5rem);
      }
      dialog::backdrop {
        background: rgb(0 0 0 / 0.45);
      }
      header {
        display: flex;
        justify-content: space-between;
        align-items: center;
        gap: 1rem;
        padding: 0.8rem 1rem;
        border-bottom: 1px solid var(--sb-border);
      }
      h2 {
        margin: 0;
      }
      .body {
        padding: 1rem;
      }
      button.close {
        border: none;
        background: none;
        padding: 0.3rem;
      }
    `,
  ];

  @property() heading = '';
  /**
   * Escape does not close the dialog; it raises `sb-close-request` instead, for a dialog that
   * must ask first (the new-key dialog: the key is shown only once).
   */
  @property({ type: Boolean }) guarded = false;
  @query('dialog') private dialog!: HTMLDialogElement;
  private opener: HTMLElement | null = null;

  get isOpen(): boolean {
    return this.dialog?.open ?? false;
  }

  async show(): Promise<void> {
    this.opener = deepActiveElement();
    await this.updateComplete;
    if (!this.dialog.open) this.dialog.showModal();
    const first = this.querySelector<HTMLElement>(
      '[autofocus], input:not([type=hidden]):not([disabled]), select, textarea, button:not([disabled])',
    );
    first?.focus();
  }

  close(): void {
    if (this.dialog.open) this.dialog.close();
  }

  /** Escape's keydown is stopped before it becomes a close request (Chromium may not let `cancel` be refused twice). */
  private onKeydown(event: KeyboardEvent): void {
    if (!this.guarded || event.key !== 'Escape') return;
    event.preventDefault();
    this.dispatchEvent(new Event('sb-close-request'));
  }

  private onCancel(event: Event): void {
    if (!this.guarded) return;
    event.preventDefault();
    this.dispatchEvent(new Event('sb-close-request'));
  }

  private onClose(): void {
    const opener = this.opener;
    this.opener = null;
    if (opener?.isConnected) opener.focus();
    this.dispatchEvent(new Event('sb-close'));
  }

  override render() {
    return html`<dialog aria-labelledby="heading" @close=${this.onClose} @cancel=${this.onCancel} @keydown=${this.onKeydown}>
      <header>
        <h2 id="heading">${this.heading}</h2>
        <button class="close" type="button" aria-label=${msg('Close')} @click=${this.close}>${icons.close}</button>
      </header>
      <div class="body"><slot></slot></div>
    </dialog>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'sb-dialog': SbDialog;
  }
}
