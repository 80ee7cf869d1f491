import { localized, msg } from '@lit/localize';
import { css, html, LitElement } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import { ApiFailure } from '../api.js';
import { failureText } from '../failure-text.js';
import { shared } from '../styles/shared.js';

/**
 * A failed load: what failed, why (in the administrator's language), the request ID to quote to
 * whoever runs the server, and a Retry button that fires `sb-retry`. Never a placeholder that
 * looks like loading.
 */
@localized()
@customElement('sb-failure')
export class SbFailure extends LitElement {
  static override styles = [
    shared,
    css`
      .notice {
        display: grid;
        gap: 0.4rem;
        justify-items: start;
      }
      p {
        margin: 0;
      }
    `,
  ];

  /** What was being loaded, as a sentence ("The hosts could not be loaded."). */
  @property() what = '';
  @property({ attribute: false }) error: unknown = null;

  override render() {
    const requestId = this.error instanceof ApiFailure ? this.error.requestId : undefined;
    return html`<div class="notice error" role="alert">
      <p><strong>${this.what}</strong></p>
      <p data-reason>${failureText(this.error)}</p>
      ${requestId ? html`<p class="hint">${msg('Request ID to quote:')} <code data-request-id>${requestId}</code></p>` : ''}
      <button type="button" @click=${() => this.dispatchEvent(new CustomEvent('sb-retry'))}>${msg('Retry')}</button>
    </div>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'sb-failure': SbFailure;
  }
}
