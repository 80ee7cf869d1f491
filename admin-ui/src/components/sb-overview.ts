import { localized, msg, str } from '@lit/localize';
import { Task, TaskStatus } from '@lit/task';
import { css, html, LitElement } from 'lit';
import { customElement } from 'lit/decorators.js';
import { call, type ResponseOf } from '../api.js';
import { formatAge, formatCount, formatTime } from '../lib/format.js';
import { followLink } from '../lib/navigate.js';
import { agentPath, pathFor } from '../lib/route.js';
import { renderLoad } from '../load-state.js';
import { currentLocale } from '../localization.js';
import { shared } from '../styles/shared.js';
import { reasonText } from './sb-agent-page.js';
import './sb-resource.js';

type Overview = ResponseOf<'getOverview'>;
type Fleet = ResponseOf<'getFleet'>;

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
      h3 {
        font-size: 1rem;
        margin: 1rem 0 0.5rem;
      }
      ul.fullest {
        margin: 0;
        padding-inline-start: 1.2rem;
      }
      ul.fullest li {
        margin: 0.25rem 0;
      }
      table.refusals td.n {
        text-align: end;
        font-variant-numeric: tabular-nums;
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
  /** The fleet's figures (GET /admin/fleet): kept by the registry and the channel catalog. */
  private readonly fleetTask = new Task(this, { task: () => call('getFleet'), args: () => [] });

  private timer: ReturnType<typeof setInterval> | undefined;

  override connectedCallback(): void {
    super.connectedCallback();
    // Resources change by the second; refresh while the page is open and visible.
    this.timer = setInterval(() => {
      if (document.visibilityState !== 'visible') return;
      if (this.task.status !== TaskStatus.PENDING) void this.task.run();
      if (this.fleetTask.status !== TaskStatus.PENDING) void this.fleetTask.run();
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

  private figures(label: string, id: string, rows: [string, number][]) {
    const locale = currentLocale();
    return html`<section aria-labelledby=${id}>
      <h3 id=${id}>${label}</h3>
      <dl class="grid" data-testid=${id}>
        ${rows.map(([name, value]) => html`<div class="count"><dt>${name}</dt><dd>${formatCount(value, locale)}</dd></div>`)}
      </dl>
    </section>`;
  }

  private fleet(f: Fleet) {
    const locale = currentLocale();
    const a = f.agents;
    return html`${this.figures(msg('Agents by key state'), 'fleet-keys', [
      [msg('Working key'), a.by_key_state.active],
      [msg('Key revoked'), a.by_key_state.revoked],
      [msg('No key'), a.by_key_state.none],
    ])}
      ${this.figures(msg('Agents by last access'), 'fleet-access', [
        [msg('Never'), a.by_last_access.never],
        [msg('Over a day ago'), a.by_last_access.over_a_day],
        [msg('Over an hour ago'), a.by_last_access.over_an_hour],
        [msg('Within the hour'), a.by_last_access.active],
      ])}
      <section aria-labelledby="fleet-channels">
        <h3 id="fleet-channels">${msg('Channels nearest their limits')}</h3>
        <ul class="fullest" data-testid="fleet-channels">
          ${f.channels_nearest_limits.map(
            (c) => html`<li>
              <a
                class="mono token"
                href=${pathFor('channels', c.channel_id)}
                @click=${(e: MouseEvent) => followLink(e, pathFor('channels', c.channel_id))}
                >${c.channel_id}</a
              >
              <span class="muted">
                ${msg(str`${formatCount(c.message_count, locale)} of ${formatCount(f.limits.max_messages_per_channel, locale)} messages`)},
                ${msg(str`${formatCount(c.file_count, locale)} of ${formatCount(f.limits.max_files_per_channel, locale)} files`)}
              </span>
            </li>`,
          )}
        </ul>
      </section>
      ${this.refusals(f)} ${this.backlog(f)}`;
  }

  private agentLink(agent: { agent_id: string; name: string | null }) {
    return html`<a href=${agentPath(agent.agent_id)} @click=${(e: MouseEvent) => followLink(e, agentPath(agent.agent_id))}
      >${agent.name ?? agent.agent_id}</a
    >`;
  }

  /** Refused requests that named an agent: the last hour and day by reason, and who and where from. */
  private refusals(f: Fleet) {
    const locale = currentLocale();
    const r = f.refusals;
    const lower = new Set<string>(r.lower_bound_reasons);
    // A lower bound is exact at 0: the first refusal of a throttled kind is always recorded.
    const count = (reason: keyof typeof r.last_day.by_reason | 'total', n: number) =>
      n > 0 && (lower.has(reason) || (reason === 'total' && r.lower_bound_reasons.length > 0))
        ? msg(str`at least ${formatCount(n, locale)}`)
        : formatCount(n, locale);
    const reasons = ['wrong_key', 'key_revoked', 'agent_disabled', 'wrong_address'] as const;
    return html`<section aria-labelledby="fleet-refusals">
      <h3 id="fleet-refusals">${msg('Refused requests')}</h3>
      <table class="refusals" data-testid="fleet-refusals">
        <thead>
          <tr>
            <th scope="col">${msg('Reason')}</th>
            <th scope="col">${msg('Last hour')}</th>
            <th scope="col">${msg('Last day')}</th>
          </tr>
        </thead>
        <tbody>
          ${reasons.map(
            (reason) => html`<tr>
              <th scope="row">${reasonText(reason)}</th>
              <td class="n">${count(reason, r.last_hour.by_reason[reason])}</td>
              <td class="n">${count(reason, r.last_day.by_reason[reason])}</td>
            </tr>`,
          )}
          <tr>
            <th scope="row">${msg('All reasons')}</th>
            <td class="n">${count('total', r.last_hour.total)}</td>
            <td class="n">${count('total', r.last_day.total)}</td>
          </tr>
        </tbody>
      </table>
      <p class="hint">
        ${msg('“At least”: a key this server never issued is recorded at most once per agent every 10 seconds, so those counts are lower bounds.')}
      </p>
      <h4>${msg('Most refused agents (last day)')}</h4>
      ${
        r.top_agents.length === 0
          ? html`<p class="muted">${msg('None')}</p>`
          : html`<ol class="fullest" data-testid="fleet-refused-agents">
            ${r.top_agents.map((a) => html`<li>${this.agentLink(a)} <span class="muted">${formatCount(a.count, locale)}</span></li>`)}
          </ol>`
      }
      <h4>${msg('Most refused addresses (last day)')}</h4>
      ${
        r.top_addresses.length === 0
          ? html`<p class="muted">${msg('None')}</p>`
          : html`<ol class="fullest" data-testid="fleet-refused-addresses">
            ${r.top_addresses.map(
              (a) =>
                html`<li><span class="mono token">${a.address}</span> <span class="muted">${formatCount(a.count, locale)}</span></li>`,
            )}
          </ol>`
      }
    </section>`;
  }

  /** Unread deliveries over every channel (leased and parked among them) and who has the most. */
  private backlog(f: Fleet) {
    const locale = currentLocale();
    const b = f.backlog;
    const now = Date.parse(f.generated_at);
    return html`<section aria-labelledby="fleet-backlog">
      <h3 id="fleet-backlog">${msg('Inbox backlog')}</h3>
      <dl class="grid" data-testid="fleet-backlog">
        <div class="count"><dt>${msg('Unread')}</dt><dd>${formatCount(b.unread, locale)}</dd></div>
        <div class="count"><dt>${msg('Leased')}</dt><dd>${formatCount(b.leased, locale)}</dd></div>
        <div class="count"><dt>${msg('Parked')}</dt><dd>${formatCount(b.parked, locale)}</dd></div>
        <div class="count">
          <dt>${msg('Oldest unread')}</dt>
          <dd>${b.oldest_unread_at ? formatAge(b.oldest_unread_at, now, locale) : msg('None')}</dd>
        </div>
      </dl>
      <h4>${msg('Agents with the most unread')}</h4>
      ${
        b.top_agents.length === 0
          ? html`<p class="muted">${msg('None')}</p>`
          : html`<ol class="fullest" data-testid="fleet-backlog-agents">
            ${b.top_agents.map(
              (a) => html`<li>
                ${this.agentLink(a)}
                <span class="muted"
                  >${msg(str`${formatCount(a.unread, locale)} unread, ${formatCount(a.leased, locale)} leased, ${formatCount(a.parked, locale)} parked, oldest ${formatAge(a.oldest_unread_at, now, locale)}`)}</span
                >
              </li>`,
            )}
          </ol>`
      }
      <p class="hint">${msg('Unread counts leased and parked messages too. As the channels last reported them: within about 30 seconds of a send, within 5 seconds of a claim or an acknowledgement.')}</p>
    </section>`;
  }

  override render() {
    return html`<div class="toolbar">
        <h1>${msg('Overview')}</h1>
        <button type="button" @click=${() => Promise.all([this.task.run(), this.fleetTask.run()])} ?disabled=${this.task.status === TaskStatus.PENDING}>
          ${msg('Refresh')}
        </button>
      </div>
      ${renderLoad(
        this.task,
        () => msg('The overview could not be loaded.'),
        (o) => html`<section aria-labelledby="fleet">
            <h2 id="fleet">${msg('Fleet')}</h2>
            ${renderLoad(
              this.fleetTask,
              () => msg('The fleet figures could not be loaded.'),
              (f) => this.fleet(f),
            )}
          </section>
          <section aria-labelledby="counts">
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
