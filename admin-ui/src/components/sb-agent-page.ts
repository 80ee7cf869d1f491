import { localized, msg, str } from '@lit/localize';
import { Task, TaskStatus } from '@lit/task';
import { css, html, LitElement } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import { type AgentDetail, type AgentRejection, call } from '../api.js';
import { formatCount, formatTime } from '../lib/format.js';
import { followLink } from '../lib/navigate.js';
import { pathFor } from '../lib/route.js';
import { renderLoad } from '../load-state.js';
import { currentLocale } from '../localization.js';
import { shared } from '../styles/shared.js';
import './sb-key-status.js';

export function reasonText(reason: AgentRejection['reason']): string {
  switch (reason) {
    case 'wrong_key':
      return msg('Wrong key (not its current one)');
    case 'key_revoked':
      return msg('Key revoked');
    case 'agent_disabled':
      return msg('Agent disabled');
    case 'wrong_address':
      return msg('Address not allowed for its host');
  }
}

/**
 * One agent: whether it can connect (key, host addresses, last access and
 * from where), what waits for it (inbox depth), where it talks (channels, groups, invitations),
 * and the requests naming it that were refused, so a misconfigured agent is diagnosed here.
 */
@localized()
@customElement('sb-agent-page')
export class SbAgentPage extends LitElement {
  static override styles = [
    shared,
    css`
      h1 {
        overflow-wrap: anywhere;
      }
      h1:focus {
        outline: none;
      }
      h2 {
        font-size: 1.1rem;
        margin: 1.5rem 0 0.5rem;
      }
      dl.summary {
        display: grid;
        grid-template-columns: repeat(auto-fill, minmax(12rem, 1fr));
        gap: 0.75rem 1rem;
        margin: 0 0 1rem;
      }
      dl.summary dt {
        color: var(--sb-muted);
        font-size: 0.85rem;
      }
      dl.summary dd {
        margin: 0;
      }
      .count {
        font-size: 1.4rem;
        font-weight: 600;
      }
    `,
  ];

  @property({ attribute: 'agent-id' }) agentId = '';
  /** The agent's detail and its refused requests, loaded together; Refresh and Retry re-run it. */
  private readonly task = new Task(this, {
    task: async ([agentId]: readonly [string]) => {
      const params = { agent_id: agentId };
      const [detail, refused] = await Promise.all([
        call('getAdminAgent', { params }),
        call('listAgentRejections', { params }),
      ]);
      return { detail, rejections: refused.rejections };
    },
    args: () => [this.agentId] as const,
  });

  override firstUpdated(): void {
    // Lands keyboard and screen-reader users on the agent they opened, once it has loaded.
    void this.task.taskComplete
      .catch(() => undefined)
      .then(async () => {
        await this.updateComplete;
        this.renderRoot.querySelector<HTMLElement>('h1')?.focus();
      });
  }

  private link(path: string, text: string) {
    return html`<a href=${path} @click=${(e: MouseEvent) => followLink(e, path)}>${text}</a>`;
  }

  private channelsTable(detail: AgentDetail) {
    const locale = currentLocale();
    if (detail.channels.length === 0) return html`<p class="muted">${msg('No channels yet.')}</p>`;
    return html`<table class="stack" data-testid="agent-channels">
        <thead>
          <tr>
            <th scope="col">${msg('Channel')}</th>
            <th scope="col">${msg('Unread')}</th>
            <th scope="col">${msg('Leased')}</th>
            <th scope="col">${msg('Parked')}</th>
            <th scope="col">${msg('Last message')}</th>
          </tr>
        </thead>
        <tbody>
          ${detail.channels.map((ch) => {
            const path = pathFor('channels', ch.channel_id);
            const label =
              ch.kind === 'group'
                ? msg(str`Group ${ch.name ?? ch.channel_id}`)
                : msg(str`Private with ${ch.peer_name ?? ch.peer_agent_id ?? ch.channel_id}`);
            return html`<tr data-channel-id=${ch.channel_id}>
              <td data-label=${msg('Channel')}>${this.link(path, label)}</td>
              <td data-label=${msg('Unread')}>${formatCount(ch.unread, locale)}</td>
              <td data-label=${msg('Leased')}>${formatCount(ch.leased, locale)}</td>
              <td data-label=${msg('Parked')}>${formatCount(ch.parked, locale)}</td>
              <td data-label=${msg('Last message')}>
                ${ch.last_message_at ? formatTime(ch.last_message_at, locale) : msg('None yet')}
              </td>
            </tr>`;
          })}
        </tbody>
      </table>
      ${
        detail.channels_total > detail.channels.length
          ? html`<p class="muted">
              ${msg(str`Showing the ${detail.channels.length} most recent of ${detail.channels_total} channels.`)}
            </p>`
          : ''
      }`;
  }

  private rejectionsTable(rejections: AgentRejection[]) {
    const locale = currentLocale();
    if (rejections.length === 0) {
      return html`<p class="muted" data-testid="no-rejections">${msg('No refused requests recorded.')}</p>`;
    }
    return html`<table class="stack" data-testid="agent-rejections">
      <thead>
        <tr>
          <th scope="col">${msg('Reason')}</th>
          <th scope="col">${msg('Source address')}</th>
          <th scope="col">${msg('Count')}</th>
          <th scope="col">${msg('Last refused')}</th>
          <th scope="col">${msg('First refused')}</th>
        </tr>
      </thead>
      <tbody>
        ${rejections.map(
          (r) => html`<tr data-reason=${r.reason} data-address=${r.address}>
            <td data-label=${msg('Reason')}>${reasonText(r.reason)}</td>
            <td data-label=${msg('Source address')} class="mono">${r.address}</td>
            <td data-label=${msg('Count')}>${formatCount(r.count, locale)}</td>
            <td data-label=${msg('Last refused')}>${formatTime(r.last_at, locale)}</td>
            <td data-label=${msg('First refused')}>${formatTime(r.first_at, locale)}</td>
          </tr>`,
        )}
      </tbody>
    </table>`;
  }

  override render() {
    const locale = currentLocale();
    // The heading keeps the ID until the name is known (and when the load failed).
    const detail = this.task.value?.detail;
    const back = pathFor('agents');
    const heading = detail ? detail.agent.name : this.agentId;
    return html`<p>${this.link(back, msg('← All agents'))}</p>
      <div class="toolbar">
        <h1 tabindex="-1" class="mono">${heading}</h1>
        <button type="button" ?disabled=${this.task.status === TaskStatus.PENDING} @click=${() => this.task.run()}>${msg('Refresh')}</button>
      </div>
      ${renderLoad(
        this.task,
        () => msg('The agent could not be loaded.'),
        ({ detail, rejections }) => html`<dl class="summary">
                <div>
                  <dt>${msg('Display name')}</dt>
                  <dd>${detail.agent.display_name}</dd>
                </div>
                <div>
                  <dt>${msg('Status')}</dt>
                  <dd>
                    ${
                      detail.agent.enabled
                        ? html`<span class="badge ok">${msg('Enabled')}</span>`
                        : html`<span class="badge off">${msg('Disabled')}</span>`
                    }
                  </dd>
                </div>
                <div>
                  <dt>${msg('API key')}</dt>
                  <dd data-testid="agent-key"><sb-key-status .agent=${detail.agent}></sb-key-status></dd>
                </div>
                <div>
                  <dt>${msg('Host')}</dt>
                  <dd>
                    ${detail.host.name}
                    <span class="mono muted" data-testid="host-addresses">${detail.host.addresses.join(', ')}</span>
                  </dd>
                </div>
                <div>
                  <dt>${msg('Last access')}</dt>
                  <dd data-testid="last-access">
                    ${
                      detail.agent.last_access_at
                        ? html`${formatTime(detail.agent.last_access_at, locale)}
                          ${
                            detail.agent.last_access_address
                              ? html`<span class="mono muted"
                                  >${msg(str`from ${detail.agent.last_access_address}`)}</span
                                >`
                              : ''
                          }`
                        : msg('Never')
                    }
                  </dd>
                </div>
                ${
                  detail.agent.description
                    ? html`<div>
                        <dt>${msg('Description')}</dt>
                        <dd>${detail.agent.description}</dd>
                      </div>`
                    : ''
                }
              </dl>
              <h2>${msg('Inbox')}</h2>
              <dl class="summary" data-testid="inbox-depth">
                <div>
                  <dt>${msg('Unread')}</dt>
                  <dd class="count" data-testid="inbox-unread">${formatCount(detail.inbox.unread, locale)}</dd>
                </div>
                <div>
                  <dt>${msg('Leased (claimed, not yet acknowledged)')}</dt>
                  <dd class="count" data-testid="inbox-leased">${formatCount(detail.inbox.leased, locale)}</dd>
                </div>
                <div>
                  <dt>${msg('Claimable')}</dt>
                  <dd class="count">${formatCount(detail.inbox.claimable, locale)}</dd>
                </div>
                <div>
                  <dt>${msg('Parked (claim limit reached without an ACK)')}</dt>
                  <dd class="count" data-testid="inbox-parked">${formatCount(detail.inbox.parked, locale)}</dd>
                </div>
              </dl>
              <h2>${msg('Channels and groups')}</h2>
              ${this.channelsTable(detail)}
              ${
                detail.invitations.length > 0
                  ? html`<p>
                      ${msg('Invited to:')}
                      ${detail.invitations.map((id) => html`${this.link(pathFor('channels', id), id)} `)}
                    </p>`
                  : ''
              }
              <h2>${msg('Recent refused requests')}</h2>
              <p class="hint">
                ${msg('Requests naming this agent that were refused, newest first: a wrong, old or revoked key, or an address that is not one of its host’s.')}
              </p>
              ${this.rejectionsTable(rejections)}`,
      )}`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'sb-agent-page': SbAgentPage;
  }
}
