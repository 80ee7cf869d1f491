import { localized, msg, str } from '@lit/localize';
import { Task, TaskStatus } from '@lit/task';
import { css, html, LitElement } from 'lit';
import { customElement } from 'lit/decorators.js';
import { call, type ResponseOf } from '../api.js';
import { formatCount, formatTime } from '../lib/format.js';
import { renderLoad } from '../load-state.js';
import { currentLocale } from '../localization.js';
import { shared } from '../styles/shared.js';
import './sb-resource.js';

type Overview = ResponseOf<'getOverview'>;

const REFRESH_MS = 15_000;

/** Counts and server resources at a glance. */
@localized()
@customElement('sb-overview')
export class SbOverview extends LitElement {
  static override styles = [
    shared,
    css`
      .grid {
        display: grid;
        grid-template-columns: repeat(auto-fill, minmax(11rem, 1fr));
        gap: 0.75rem;
      }
      .resources {
        grid-template-columns: repeat(auto-fill, minmax(14rem, 1fr));
      }
      .count {
        border: 1px solid var(--sb-border);
        background: var(--sb-surface);
        border-radius: 8px;
        padding: 0.8rem 1rem;
      }
      .count dt {
        color: var(--sb-muted);
        font-size: 0.875rem;
      }
      .count dd {
        margin: 0.2rem 0 0;
        font-size: 1.6rem;
        font-variant-numeric: tabular-nums;
      }
    `,
  ];

  /** Loads on connect; Refresh and the timer re-run it, keeping the figures on screen meanwhile. */
  private readonly task = new Task(this, { task: () => call('getOverview'), args: () => [] });

  private timer: ReturnType<typeof setInterval> | undefined;

  override connectedCallback(): void {
    super.connectedCallback();
    // Resources change by the second; refresh while the page is open and visible.
    this.timer = setInterval(() => {
      if (document.visibilityState === 'visible' && this.task.status !== TaskStatus.PENDING) void this.task.run();
    }, REFRESH_MS);
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    clearInterval(this.timer);
  }

  private countCards(o: Overview) {
    const locale = currentLocale();
    const cards: [string, number | undefined][] = [
      [msg('Hosts'), o.counts.hosts],
      [msg('Agents'), o.counts.agents],
      [msg('Enabled agents'), o.counts.enabled_agents],
      [msg('Private channels'), o.counts.private_channels],
      [msg('Group channels'), o.counts.group_channels],
      [msg('Messages'), o.counts.messages],
      [msg('Files'), o.counts.files],
      [msg('Pending cleanup jobs'), o.counts.cleanup_pending],
      [msg('Failed cleanup jobs'), o.counts.cleanup_failed],
    ];
    return html`<dl class="grid">
      ${cards
        .filter(([, value]) => value !== undefined)
        .map(
          ([label, value]) =>
            html`<div class="count"><dt>${label}</dt><dd>${formatCount(value ?? 0, locale)}</dd></div>`,
        )}
    </dl>`;
  }

  override render() {
    return html`<div class="toolbar">
        <h1>${msg('Overview')}</h1>
        <button type="button" @click=${() => this.task.run()} ?disabled=${this.task.status === TaskStatus.PENDING}>
          ${msg('Refresh')}
        </button>
      </div>
      ${renderLoad(
        this.task,
        () => msg('The overview could not be loaded.'),
        (o) => html`<section aria-labelledby="counts">
            <h2 id="counts">${msg('Counts')}</h2>
            ${this.countCards(o)}
          </section>
          <section aria-labelledby="resources">
            <h2 id="resources">${msg('Server resources')}</h2>
            <div class="grid resources">
              <sb-resource data-metric="cpu" label=${msg('CPU')} .metric=${o.resources.cpu}></sb-resource>
              <sb-resource data-metric="memory" label=${msg('Memory')} .metric=${o.resources.memory}></sb-resource>
              <sb-resource data-metric="disk" label=${msg('Disk')} .metric=${o.resources.disk}></sb-resource>
              <sb-resource data-metric="gpu" label=${msg('GPU')} .metric=${o.resources.gpu}></sb-resource>
            </div>
            <p class="hint">${msg(str`Measured at ${formatTime(o.generated_at, currentLocale())}`)}</p>
          </section>`,
      )}`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'sb-overview': SbOverview;
  }
}
