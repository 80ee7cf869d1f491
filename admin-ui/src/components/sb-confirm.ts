import { localized, msg } from '@lit/localize';
import { html, LitElement } from 'lit';
import { customElement, query, state } from 'lit/decorators.js';
import { shared } from '../styles/shared.js';
import type { SbDialog } from './sb-dialog.js';
import './sb-dialog.js';

export interface ConfirmRequest {
  heading: string;
  text: string;
  confirmLabel: string;
  danger?: boolean;
}

/** Asks before an irreversible action; `ask()` resolves true only on an explicit confirmation. */
@localized()
@customElement('sb-confirm')
export class SbConfirm extends LitElement {
  static override styles = [shared];

  @state() private request: ConfirmRequest | null = null;
  @query('sb-dialog') private dialog!: SbDialog;
  private resolve: ((confirmed: boolean) => void) | null = null;

  async ask(request: ConfirmRequest): Promise<boolean> {
    this.resolve?.(false);
    this.request = request;
    await this.updateComplete;
    const answer = new Promise<boolean>((resolve) => {
      this.resolve = resolve;
    });
    await this.dialog.show();
    return answer;
  }

  private finish(confirmed: boolean): void {
    const resolve = this.resolve;
    this.resolve = null;
    resolve?.(confirmed);
    this.dialog.close();
  }

  override render() {
    const r = this.request;
    return html`<sb-dialog heading=${r?.heading ?? ''} @sb-close=${() => this.finish(false)}>
      <p>${r?.text}</p>
      <div class="actions">
        <button type="button" autofocus @click=${() => this.finish(false)}>${msg('Cancel')}</button>
        <button type="button" class=${r?.danger ? 'danger' : 'primary'} @click=${() => this.finish(true)}>
          ${r?.confirmLabel}
        </button>
      </div>
    </sb-dialog>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'sb-confirm': SbConfirm;
  }
}
