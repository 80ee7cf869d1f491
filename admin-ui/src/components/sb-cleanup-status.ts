import { localized, msg, str } from '@lit/localize';
import { css, html, LitElement } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import type { ResponseOf } from '../api.js';
import { formatCount, formatTime } from '../lib/format.js';
import { currentLocale } from '../localization.js';
import { shared } from '../styles/shared.js';

export type CleanupStatus = ResponseOf<'getCleanup'>;

/** The retention cleanup's state, progress and failures (shown after saving settings too). */
@localized()
@customElement('sb-cleanup-status')
export class SbCleanupStatus extends LitElement {
  static override styles = [
    shared,
    css`
      dl {
        display: grid;
        grid-template-columns: max-content 1fr;
        gap: 0.35rem 1rem;
        margin: 0;
      }
      dt {
        color: var(--sb-muted);
      }
      dd {
        margin: 0;
      }
      progress {
        width: min(20rem, 100%);
      }
    `,
  ];

  @property({ attribute: false }) status: CleanupStatus | null = null;

  private stateBadge(state: CleanupStatus['state']) {
    switch (state) {
      case 'idle':
        return html`<span class="badge ok" data-state="idle">${msg('Idle')}</span>`;
      case 'running':
        return html`<span class="badge" data-state="running">${msg('Running')}</span>`;
      case 'failed':
        return html`<span class="badge bad" data-state="failed">${msg('Failed')}</span>`;
    }
  }

  override render() {
    const s = this.status;
    if (!s) return '';
    const locale = currentLocale();
    // Idle means every channel is within the limits (channels_done = channels_total), whether or
    // not a retroactive run was ever needed: a full bar beside 'Last completed: Never' read as a
    // contradiction, so the bar is only for a run in progress.
    const progress =
      s.state === 'idle'
        ? s.channels_total > 0
          ? html`<span data-testid="cleanup-idle"
              >${msg(str`All ${formatCount(s.channels_total, locale)} channels are within the limits`)}</span
            >`
          : msg('Nothing to do')
        : s.channels_total > 0
          ? html`<progress max=${s.channels_total} value=${s.channels_done} aria-label=${msg('Cleanup progress')}></progress>
            ${msg(str`${formatCount(s.channels_done, locale)} of ${formatCount(s.channels_total, locale)} channels`)}`
          : msg('Nothing to do');
    return html`<dl>
      <dt>${msg('State')}</dt>
      <dd>${this.stateBadge(s.state)}</dd>
      <dt>${msg('Progress')}</dt>
      <dd>${progress}</dd>
      <dt>${msg('Pending jobs')}</dt>
      <dd>${formatCount(s.pending_jobs, locale)}</dd>
      <dt>${msg('Failed jobs')}</dt>
      <dd class=${s.failed_jobs > 0 ? 'error' : ''}>${formatCount(s.failed_jobs, locale)}</dd>
      <dt>${msg('Last error')}</dt>
      <dd class=${s.last_error ? 'error' : 'muted'}>${s.last_error ?? msg('None')}</dd>
      <dt>${msg('Last completed')}</dt>
      <dd>${s.last_completed_at ? formatTime(s.last_completed_at, locale) : msg('No cleanup run was needed yet')}</dd>
    </dl>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'sb-cleanup-status': SbCleanupStatus;
  }
}
