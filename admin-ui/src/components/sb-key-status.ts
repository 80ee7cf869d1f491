import { localized, msg, str } from '@lit/localize';
import { css, html, LitElement } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import type { Agent } from '../api.js';
import { formatTime } from '../lib/format.js';
import { currentLocale } from '../localization.js';
import { shared } from '../styles/shared.js';

/**
 * Whether an agent has a working API key: a badge, then the key's visible
 * prefix and when it was issued, or when it was revoked. Shown in the agent list and on the agent
 * page, so both say the same thing.
 */
@localized()
@customElement('sb-key-status')
export class SbKeyStatus extends LitElement {
  static override styles = [
    shared,
    css`
      :host {
        display: block;
      }
      .detail {
        display: block;
        font-size: 0.85rem;
        color: var(--sb-muted);
      }
    `,
  ];

  @property({ attribute: false }) agent: Agent | null = null;

  override render() {
    const agent = this.agent;
    if (!agent) return '';
    const locale = currentLocale();
    switch (agent.key_status) {
      case 'active':
        return html`<span class="badge ok" data-key-status="active">${msg('Working key')}</span>
          ${agent.key_prefix ? html`<span class="detail mono" data-testid="key-prefix">${agent.key_prefix}…</span>` : ''}
          <span class="detail" data-testid="key-issued"
            >${
              agent.key_issued_at
                ? msg(str`Issued ${formatTime(agent.key_issued_at, locale)}`)
                : msg('Issued before key details were kept')
            }</span
          >`;
      case 'revoked':
        return html`<span class="badge bad" data-key-status="revoked">${msg('Key revoked')}</span>
          ${agent.key_revoked_at ? html`<span class="detail">${msg(str`Revoked ${formatTime(agent.key_revoked_at, locale)}`)}</span>` : ''}`;
      default:
        return html`<span class="badge off" data-key-status="none">${msg('No key')}</span>`;
    }
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'sb-key-status': SbKeyStatus;
  }
}
