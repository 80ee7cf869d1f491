import { localized, msg, str } from '@lit/localize';
import { html, LitElement } from 'lit';
import { customElement, query, state } from 'lit/decorators.js';
import { call } from '../api.js';
import { failureText } from '../failure-text.js';
import { icons } from '../icons.js';
import type { CopyOutcome } from '../lib/clipboard.js';
import { copyFeedback, copyFromButton } from '../lib/copy-secret.js';
import { shared } from '../styles/shared.js';
import { toast } from '../toast.js';
import type { SbConfirm } from './sb-confirm.js';
import './sb-confirm.js';

/**
 * The `/metrics` scrape token on the settings page (docs/operations.md, "Metrics"): create one
 * (shown once, here, until the administrator hides it or leaves the page; a new one replaces the
 * old) or delete it, which turns metrics off.
 */
@localized()
@customElement('sb-metrics-token')
export class SbMetricsToken extends LitElement {
  static override styles = shared;

  @state() private token = '';
  @state() private outcome: CopyOutcome | null = null;
  @state() private error = '';
  @state() private busy = false;
  @query('sb-confirm') private confirm!: SbConfirm;

  private async create(): Promise<void> {
    const ok = await this.confirm.ask({
      heading: msg('Create a metrics token?'),
      text: msg(
        'A new token replaces the current one at once: scrapers that use the old token get 401 until you give them the new one.',
      ),
      confirmLabel: msg('Create token'),
    });
    if (!ok) return;
    this.error = '';
    this.busy = true;
    try {
      const { token } = await call('createMetricsToken');
      this.outcome = null;
      this.token = token;
    } catch (error) {
      this.error = failureText(error);
    } finally {
      this.busy = false;
    }
  }

  private async turnOff(): Promise<void> {
    const ok = await this.confirm.ask({
      heading: msg('Turn metrics off?'),
      text: msg('The token is deleted and /metrics answers 404 until you create a new token.'),
      confirmLabel: msg('Turn metrics off'),
      danger: true,
    });
    if (!ok) return;
    this.error = '';
    this.busy = true;
    try {
      const { was_on } = await call('deleteMetricsToken');
      this.token = '';
      toast(this, was_on ? msg('Metrics are off. The token was deleted.') : msg('Metrics were already off.'));
    } catch (error) {
      this.error = failureText(error);
    } finally {
      this.busy = false;
    }
  }

  private async copy(event: Event): Promise<void> {
    this.outcome = await copyFromButton(this.token, event);
  }

  override render() {
    const scrape = `${location.origin}/metrics`;
    return html`<h2>${msg('Metrics')}</h2>
      <p class="hint">
        ${msg(str`Prometheus can scrape ${scrape} with a token, sent as Authorization: Bearer. Without a token, metrics are off.`)}
      </p>
      ${this.error ? html`<p class="notice error" role="alert">${this.error}</p>` : ''}
      ${
        this.token
          ? html`<p>${msg('The new metrics token. It is shown only this once: store it in your scraper’s configuration now.')}</p>
              <code class="secret token mono" data-testid="metrics-token">${this.token}</code>
              <div class="actions">
                <button type="button" class="primary" @click=${this.copy}>${icons.copy} ${msg('Copy token')}</button>
                <button type="button" @click=${() => {
                  this.token = '';
                  this.outcome = null;
                }}>${msg('Hide token')}</button>
              </div>
              <div role="status" aria-live="polite">${copyFeedback(this.outcome, msg('Copied to the clipboard.'), msg('Select the token and copy it by hand.'))}</div>`
          : ''
      }
      <div class="actions">
        <button type="button" data-testid="metrics-create" ?disabled=${this.busy} @click=${this.create}>
          ${msg('Create token')}
        </button>
        <button type="button" class="danger" data-testid="metrics-delete" ?disabled=${this.busy} @click=${this.turnOff}>
          ${msg('Turn metrics off')}
        </button>
      </div>
      <sb-confirm></sb-confirm>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'sb-metrics-token': SbMetricsToken;
  }
}
