import { localized, msg, str } from '@lit/localize';
import { css, html, LitElement } from 'lit';
import { customElement, query, state } from 'lit/decorators.js';
import { type AdminGroup, call } from '../api.js';
import { failureText } from '../failure-text.js';
import { icons } from '../icons.js';
import { agentsByIds, searchAgents } from '../lib/agent-directory.js';
import type { AgentChoice } from '../lib/agent-search.js';
import { agentLabel, type GroupFilters, groupFiltersFromSearch, groupFiltersToSearch } from '../lib/channel-filters.js';
import { formatTime } from '../lib/format.js';
import { ListAddress } from '../lib/list-address.js';
import { followLink } from '../lib/navigate.js';
import { pathFor } from '../lib/route.js';
import { nameClass } from '../lib/wrap.js';
import { type LoadFailure, renderFailure, renderLoading } from '../load-state.js';
import { currentLocale } from '../localization.js';
import { shared } from '../styles/shared.js';
import { toast } from '../toast.js';
import type { SbConfirm } from './sb-confirm.js';
import type { SbOwnerDialog } from './sb-owner-dialog.js';
import './sb-confirm.js';
import './sb-owner-dialog.js';
import './sb-agent-combobox.js';

/**
 * Groups: owner, members and pending invitations; reassign the owner or dissolve (REQ-18..23).
 * Filtered by owner and by member or invitee, the filters in the address.
 */
@localized()
@customElement('sb-groups')
export class SbGroups extends LitElement {
  static override styles = [
    shared,
    css`
      .filters sb-agent-combobox {
        flex: 0 1 18rem;
        min-width: 12rem;
      }
      ul.people {
        margin: 0;
        padding: 0;
        list-style: none;
      }
      .group-name {
        display: inline-flex;
        align-items: center;
        gap: 0.4rem;
      }
    `,
  ];

  @state() private groups: AdminGroup[] = [];
  /** The agents the groups shown name (the server sends their names with each page). */
  @state() private known: ReadonlyMap<string, AgentChoice> = new Map();
  /** The owner and member filters, as the address says. */
  @state() private filters: GroupFilters = groupFiltersFromSearch(location.search);
  private readonly address = new ListAddress(this, pathFor('groups'), (search) => {
    this.filters = groupFiltersFromSearch(search);
    void this.load();
    void this.nameFilterAgents();
  });
  /** Answers to superseded requests (the filters changed meanwhile) are dropped. */
  private generation = 0;
  @state() private next: string | null = null;
  @state() private loaded = false;
  @state() private failure: LoadFailure | null = null;
  /** An action's refusal; a failed load is `failure`. */
  @state() private error = '';
  @query('sb-owner-dialog') private ownerDialog!: SbOwnerDialog;
  @query('sb-confirm') private confirm!: SbConfirm;

  override connectedCallback(): void {
    super.connectedCallback();
    void this.load();
    void this.nameFilterAgents();
  }

  /** Names for the filters' agents that no group shown names (an address opened as a link). */
  private async nameFilterAgents(): Promise<void> {
    const ids = [this.filters.owner, this.filters.participant].filter((id) => id && !this.known.has(id));
    if (ids.length === 0) return;
    const found = await agentsByIds(ids);
    if (found.length > 0) this.known = new Map([...this.known, ...found.map((a) => [a.agent_id, a] as const)]);
  }

  private get agents(): AgentChoice[] {
    return [...this.known.values()];
  }

  private get agentMap(): ReadonlyMap<string, AgentChoice> {
    return this.known;
  }

  private async load(more = false): Promise<void> {
    const generation = ++this.generation;
    try {
      const page = await call('adminListGroups', {
        query: {
          owner: this.filters.owner || undefined,
          participant: this.filters.participant || undefined,
          cursor: more ? (this.next ?? undefined) : undefined,
        },
      });
      if (generation !== this.generation) return;
      this.groups = more ? [...this.groups, ...page.groups] : page.groups;
      this.known = new Map([...this.known, ...page.agents.map((a) => [a.agent_id, a] as const)]);
      this.next = page.next_cursor;
      this.failure = null;
      this.loaded = true;
    } catch (error) {
      if (generation === this.generation) this.failure = { error, retry: () => this.load(more) };
    }
  }

  private filterBy(which: keyof GroupFilters) {
    return (event: CustomEvent<string>) => {
      this.filters = { ...this.filters, [which]: event.detail };
      this.address.write(groupFiltersToSearch(this.filters));
      void this.load();
    };
  }

  private async ownerChanged(): Promise<void> {
    toast(this, msg('Owner changed.'));
    await this.load();
  }

  private async dissolve(group: AdminGroup): Promise<void> {
    const ok = await this.confirm.ask({
      heading: msg('Dissolve group'),
      text: msg(str`Dissolve ${group.name}? Its messages and files are deleted for good and it leaves every inbox.`),
      confirmLabel: msg('Dissolve'),
      danger: true,
    });
    if (!ok) return;
    try {
      await call('dissolveGroup', { params: { group_id: group.group_id } });
      toast(this, msg(str`Dissolved ${group.name}.`));
      this.error = '';
      await this.load();
    } catch (error) {
      this.error = failureText(error);
    }
  }

  private row(group: AdminGroup) {
    const agents = this.agentMap;
    const active = group.members.filter((m) => m.state === 'active');
    const pending = group.members.filter((m) => m.state === 'pending');
    return html`<tr data-group-id=${group.group_id}>
      <td data-label=${msg('Name')}>
        <a
          class="group-name"
          href=${pathFor('channels', group.group_id)}
          aria-label=${msg(str`Read the messages of ${group.name}`)}
          @click=${(e: MouseEvent) => followLink(e, pathFor('channels', group.group_id))}
          >${icons.group}<strong class=${nameClass(group.name)}>${group.name}</strong></a
        >
      </td>
      <td data-label=${msg('Owner')}>${agentLabel(group.owner_id, agents)}</td>
      <td data-label=${msg(str`Members (${group.member_count})`)}>
        <ul class="people">
          ${active.map((m) => html`<li>${agentLabel(m.agent_id, agents)}</li>`)}
        </ul>
      </td>
      <td data-label=${msg(str`Pending invitations (${group.pending_count})`)}>
        ${
          pending.length === 0
            ? html`<span class="muted">${msg('None')}</span>`
            : html`<ul class="people">
                ${pending.map((m) => html`<li>${agentLabel(m.agent_id, agents)}</li>`)}
              </ul>`
        }
      </td>
      <td data-label=${msg('Created')}>${formatTime(group.created_at, currentLocale())}</td>
      <td>
        <div class="actions">
          <button type="button" @click=${() => this.ownerDialog.open(group)}>
            ${msg('Change owner')}<span class="visually-hidden"> (${group.name})</span>
          </button>
          <button type="button" class="danger" @click=${() => this.dissolve(group)} aria-label=${msg(str`Dissolve ${group.name}`)}>
            ${msg('Dissolve')}
          </button>
        </div>
      </td>
    </tr>`;
  }

  override render() {
    return html`<h1>${msg('Groups')}</h1>
      <div class="filters" role="search" aria-label=${msg('Filter groups')}>
        <sb-agent-combobox
          id="owner-filter"
          .label=${msg('Owner')}
          .placeholder=${msg('Any owner')}
          .agents=${this.agents}
          .search=${searchAgents}
          .value=${this.filters.owner}
          @sb-change=${this.filterBy('owner')}
        ></sb-agent-combobox>
        <sb-agent-combobox
          id="participant-filter"
          .label=${msg('Member or invitee')}
          .placeholder=${msg('Anyone')}
          .agents=${this.agents}
          .search=${searchAgents}
          .value=${this.filters.participant}
          @sb-change=${this.filterBy('participant')}
        ></sb-agent-combobox>
      </div>
      ${this.error ? html`<p class="notice error" role="alert">${this.error}</p>` : ''}
      ${this.failure ? renderFailure(msg('The groups could not be loaded.'), this.failure.error, this.failure.retry) : ''}
      ${
        !this.loaded
          ? this.failure
            ? ''
            : renderLoading()
          : this.groups.length === 0
            ? html`<p class="muted">${msg('No groups to show.')}</p>`
            : html`<table class="stack">
              <thead>
                <tr>
                  <th scope="col">${msg('Name')}</th>
                  <th scope="col">${msg('Owner')}</th>
                  <th scope="col">${msg('Members')}</th>
                  <th scope="col">${msg('Pending invitations')}</th>
                  <th scope="col">${msg('Created')}</th>
                  <th scope="col"><span class="visually-hidden">${msg('Actions')}</span></th>
                </tr>
              </thead>
              <tbody>
                ${this.groups.map((g) => this.row(g))}
              </tbody>
            </table>`
      }
      ${this.next ? html`<p><button type="button" @click=${() => this.load(true)}>${msg('Show more')}</button></p>` : ''}
      <sb-owner-dialog .agents=${this.agentMap} @sb-saved=${this.ownerChanged}></sb-owner-dialog>
      <sb-confirm></sb-confirm>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'sb-groups': SbGroups;
  }
}
