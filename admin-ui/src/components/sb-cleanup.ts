import { localized, msg } from '@lit/localize';
import { html, LitElement } from 'lit';
import { customElement, state } from 'lit/decorators.js';
import { call } from '../api.js';
import { failureText } from '../failure-text.js';
import { shared } from '../styles/shared.js';
import type { CleanupStatus } from './sb-cleanup-status.js';
import './sb-cleanup-status.js';

/** Cleanup health: pending and failed deletion jobs, the last error and the last completion. */
@localized()
@customElement('sb-cleanup')
export class SbCleanup extends LitElement {
  static override styles = [shared];

  @state() private status: CleanupStatus | null = null;
  @state() private error = '';
  @state() private loading = false;

  override connectedCallback(): void {
    super.connectedCallback();
    void this.load();
  }

  private async load(): Promise<void> {
    this.loading = true;
    try {
      this.status = await call('getCleanup');
      this.error = '';
    } catch (error) {
      this.error = failureText(error);
    } finally {
      this.loading = false;
    }
  }

  override render() {
    return html`<div class="toolbar">
        <h1>${msg('Cleanup')}</h1>
        <button type="button" @click=${this.load} ?disabled=${this.loading}>${msg('Refresh')}</button>
      </div>
      <p class="muted">
        ${msg('Retention deletes the oldest messages and files beyond the limits, and everything beyond a lowered limit.')}
      </p>
      ${this.error ? html`<p class="notice error" role="alert">${this.error}</p>` : ''}
      <sb-cleanup-status .status=${this.status}></sb-cleanup-status>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'sb-cleanup': SbCleanup;
  }
}
