import { localized, msg, str } from '@lit/localize';
import { css, html, LitElement } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import type { ResponseOf } from '../api.js';
import { formatBytes, formatPercent } from '../lib/format.js';
import { currentLocale } from '../localization.js';
import { resourceDetailText, resourceReasonText } from '../server-text.js';
import { shared } from '../styles/shared.js';

export type ResourceMetric = ResponseOf<'getOverview'>['resources']['cpu'];

/** One server resource: its utilization as a meter, or explicitly "unavailable" and why (REQ-61). */
@localized()
@customElement('sb-resource')
export class SbResource extends LitElement {
  static override styles = [
    shared,
    css`
      :host {
        display: block;
        border: 1px solid var(--sb-border);
        background: var(--sb-surface);
        border-radius: 8px;
        padding: 0.8rem 1rem;
      }
      .name {
        font-weight: 600;
      }
      .figure {
        font-size: 1.6rem;
        font-variant-numeric: tabular-nums;
      }
      meter {
        width: 100%;
        height: 0.8rem;
      }
    `,
  ];

  @property() label = '';
  @property({ attribute: false }) metric: ResourceMetric | null = null;

  override render() {
    const m = this.metric;
    const locale = currentLocale();
    if (!m) return html`<div class="name">${this.label}</div>`;
    if (!m.available) {
      return html`<div class="name" id="name">${this.label}</div>
        <div class="figure muted" data-state="unavailable">${msg('Unavailable')}</div>
        <p class="hint">${resourceReasonText(m)}</p>`;
    }
    const percent = formatPercent(m.utilization_percent, locale);
    const amounts =
      m.used_bytes !== undefined && m.total_bytes !== undefined
        ? msg(str`${formatBytes(m.used_bytes, locale)} of ${formatBytes(m.total_bytes, locale)}`)
        : '';
    return html`<div class="name" id="name">${this.label}</div>
      <div class="figure" data-state="available">${percent}</div>
      <meter min="0" max="100" low="70" high="90" optimum="0" value=${m.utilization_percent} aria-labelledby="name"></meter>
      ${amounts ? html`<p class="hint">${amounts}</p>` : ''} ${m.detail || m.detail_code ? html`<p class="hint">${resourceDetailText(m)}</p>` : ''}`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'sb-resource': SbResource;
  }
}
