import { localized, msg, str } from '@lit/localize';
import { css, html, LitElement } from 'lit';
import { customElement, query, state } from 'lit/decorators.js';
import { live } from 'lit/directives/live.js';
import { FIELD_LIMITS } from '../../../core/lib/limits.js';
import { type Agent, call, type Host, listAllHosts, type QueryOf, type ResponseOf } from '../api.js';
import { failureText } from '../failure-text.js';
import { formatAge, formatCount, formatTime } from '../lib/format.js';
import { ListAddress } from '../lib/list-address.js';
import { followLink } from '../lib/navigate.js';
import { agentPath, pathFor } from '../lib/route.js';
import { nameClass } from '../lib/wrap.js';
import { type LoadFailure, renderFailure, renderLoading } from '../load-state.js';
import { currentLocale } from '../localization.js';
import { nameText } from '../render-names.js';
import { shared } from '../styles/shared.js';
import { toast } from '../toast.js';
import type { KeyIssued, SbAgentDialog } from './sb-agent-dialog.js';
import type { SbConfirm } from './sb-confirm.js';
import type { SbKeyDialog } from './sb-key-dialog.js';
import './sb-agent-bulk.js';
import './sb-agent-dialog.js';
import './sb-confirm.js';
import './sb-key-dialog.js';
import './sb-key-status.js';
import './sb-row-menu.js';

type Sort = NonNullable<QueryOf<'listAgents'>['sort']>;
type Order = 'asc' | 'desc';
const SORTS: readonly (readonly [Sort, Order])[] = [
  ['name', 'asc'],
  ['name', 'desc'],
  ['host', 'asc'],
  ['host', 'desc'],
  ['last_access', 'desc'],
  ['last_access', 'asc'],
  ['status', 'desc'],
  ['status', 'asc'],
];
/** One page of the list: hundreds of agents are paged by the server, never rendered at once. */
const PAGE_SIZE = 50;

type LastAccess = NonNullable<QueryOf<'listAgents'>['last_access']>;
type KeyState = NonNullable<QueryOf<'listAgents'>['key_state']>;
const LAST_ACCESS: readonly LastAccess[] = ['never', 'over_a_day', 'over_an_hour', 'active'];
const KEY_STATES: readonly KeyState[] = ['active', 'revoked', 'none'];
type Backlog = ResponseOf<'listAgents'>['backlog'][string];
const HOST_ID = /^hst_[A-Za-z0-9_-]{1,64}$/;
/** Typing pauses this long before the search runs, so each keystroke does not cost a request. */
const SEARCH_DELAY_MS = 250;

/**
 * Agent accounts: create, edit, disable or enable, regenerate and revoke keys (REQ-03, REQ-09).
 * Searched, sorted and paged by the server (GET /admin/agents), so a fleet of thousands shows one
 * page at a time.
 */
@localized()
@customElement('sb-agents')
export class SbAgents extends LitElement {
  static override styles = [
    shared,
    css`
      .row-actions {
        flex-wrap: nowrap;
      }
      /*
       * On a phone an agent is a compact card: the name and its actions on the first line, each
       * other field on one line with its label in front, so fifty agents stay a short page.
       */
      @media (max-width: 720px) {
        table.stack tr {
          display: grid;
          grid-template-columns: minmax(0, 1fr) auto;
          padding: 0.3rem 0;
        }
        table.stack td {
          grid-column: 1 / -1;
          padding: 0 0.6rem;
          font-size: 0.9rem;
          line-height: 1.3;
        }
        table.stack td.name {
          grid-column: 1;
          font-size: 1rem;
        }
        table.stack td.row-menu {
          grid-column: 2;
          grid-row: 1;
        }
        table.stack td[data-label]:not(.name)::before {
          display: inline;
          margin-inline-end: 0.4rem;
        }
        table.stack td.name::before,
        table.stack td.empty {
          display: none;
        }
        sb-key-status {
          display: inline;
        }
      }
      /* The bulk column: a checkbox per row; on a phone it sits before the name. */
      td.pick,
      th.pick {
        width: 2rem;
      }
      @media (max-width: 720px) {
        table.stack tr {
          grid-template-columns: auto minmax(0, 1fr) auto;
        }
        table.stack td.pick {
          grid-column: 1;
          grid-row: 1;
        }
        table.stack td.name {
          grid-column: 2;
        }
        table.stack td.row-menu {
          grid-column: 3;
        }
      }
      .pager {
        display: flex;
        flex-wrap: wrap;
        gap: 0.5rem;
        align-items: center;
        justify-content: end;
        margin-top: 0.75rem;
      }
    `,
  ];

  @state() private hosts: Host[] = [];
  @state() private agents: Agent[] = [];
  @state() private hostFilter = '';
  @state() private search = '';
  @state() private sort: `${Sort}:${Order}` = 'name:asc';
  @state() private lastAccess: LastAccess | '' = '';
  @state() private keyState: KeyState | '' = '';
  @state() private backlog: Record<string, Backlog> = {};
  /** The cursor that starts each page seen so far (undefined: the first page); the last is shown. */
  @state() private starts: (string | undefined)[] = [undefined];
  @state() private next: string | null = null;
  @state() private total = 0;
  private searchTimer: ReturnType<typeof setTimeout> | undefined;
  /** Answers to superseded requests (the search changed meanwhile) are dropped. */
  private generation = 0;
  @state() private loaded = false;
  /** A failed load (Retry asks for the same page again); an action's refusal is `error`. */
  @state() private failure: LoadFailure | null = null;
  @state() private error = '';
  /** The agents checked for a bulk action (kept across pages, by ID). */
  @state() private picked = new Map<string, Agent>();
  /** Back and Forward (and a console link to this page) show the list the address names. */
  private readonly address = new ListAddress(this, pathFor('agents'), () => {
    this.readUrl();
    this.restart(false, false);
  });
  @query('sb-agent-dialog') private dialog!: SbAgentDialog;
  @query('sb-key-dialog') private keyDialog!: SbKeyDialog;
  @query('sb-confirm') private confirm!: SbConfirm;

  override connectedCallback(): void {
    super.connectedCallback();
    this.readUrl();
    void this.load();
  }

  /**
   * The list's state lives in the address (search, filters, sort), so a view can be shared and
   * reloaded; anything the list did not write is no filter.
   */
  private readUrl(): void {
    const params = new URLSearchParams(location.search);
    this.search = (params.get('q') ?? '').slice(0, FIELD_LIMITS.agent_search);
    const host = params.get('host') ?? '';
    this.hostFilter = HOST_ID.test(host) ? host : '';
    const sort = params.get('sort');
    this.sort = sort && SORTS.some(([s, o]) => `${s}:${o}` === sort) ? (sort as typeof this.sort) : 'name:asc';
    const lastAccess = params.get('last_access');
    this.lastAccess = LAST_ACCESS.includes(lastAccess as LastAccess) ? (lastAccess as LastAccess) : '';
    const keyState = params.get('key_state');
    this.keyState = KEY_STATES.includes(keyState as KeyState) ? (keyState as KeyState) : '';
  }

  /** Typing a search makes one history entry for the whole burst of typing (lib/list-address.ts). */
  private writeUrl(typed: boolean): void {
    const params = new URLSearchParams();
    if (this.search.trim()) params.set('q', this.search.trim());
    if (this.hostFilter) params.set('host', this.hostFilter);
    if (this.sort !== 'name:asc') params.set('sort', this.sort);
    if (this.lastAccess) params.set('last_access', this.lastAccess);
    if (this.keyState) params.set('key_state', this.keyState);
    const search = params.toString();
    this.address.write(search ? `?${search}` : '', { typed });
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    clearTimeout(this.searchTimer);
  }

  /** Reloads the page shown (after a change) or, with `starts`, moves to another page. */
  private async load(starts = this.starts): Promise<void> {
    const generation = ++this.generation;
    const [sort, order] = this.sort.split(':') as [Sort, Order];
    try {
      const [hosts, page] = await Promise.all([
        listAllHosts(),
        call('listAgents', {
          query: {
            q: this.search.trim() || undefined,
            host_id: this.hostFilter || undefined,
            last_access: this.lastAccess || undefined,
            key_state: this.keyState || undefined,
            sort,
            order,
            cursor: starts.at(-1),
            limit: PAGE_SIZE,
          },
        }),
      ]);
      if (generation !== this.generation) return;
      // A page emptied by deletions: step back rather than show an empty page with more before it.
      if (page.agents.length === 0 && starts.length > 1) return this.load(starts.slice(0, -1));
      this.hosts = hosts;
      this.agents = page.agents;
      this.backlog = page.backlog;
      this.next = page.next_cursor;
      this.total = page.total;
      this.starts = starts;
      this.failure = null;
      this.loaded = true;
    } catch (error) {
      if (generation === this.generation) this.failure = { error, retry: () => this.load(starts) };
    }
  }

  /** A new search, filter or sort starts again from the first page. */
  private restart(typed = false, write = true): void {
    clearTimeout(this.searchTimer);
    if (write) this.writeUrl(typed);
    void this.load([undefined]);
  }

  private onSearch(event: Event): void {
    this.search = (event.target as HTMLInputElement).value;
    clearTimeout(this.searchTimer);
    this.searchTimer = setTimeout(() => this.restart(true), SEARCH_DELAY_MS);
  }

  private lastAccessLabel(bucket: LastAccess): string {
    switch (bucket) {
      case 'never':
        return msg('Never');
      case 'over_a_day':
        return msg('Over a day ago');
      case 'over_an_hour':
        return msg('Over an hour ago');
      case 'active':
        return msg('Within the hour');
    }
  }

  private keyStateLabel(state: KeyState): string {
    switch (state) {
      case 'active':
        return msg('Working key');
      case 'revoked':
        return msg('Key revoked');
      case 'none':
        return msg('No key');
    }
  }

  private inbox(agent: Agent) {
    const b = this.backlog[agent.agent_id];
    if (!b || b.unread === 0) return html`<span class="muted">${msg('Nothing unread')}</span>`;
    const locale = currentLocale();
    return html`${msg(str`${formatCount(b.unread, locale)} unread, ${formatCount(b.leased, locale)} leased`)}
      <span class="hint">${msg(str`oldest ${formatAge(b.oldest_unread_at, Date.now(), locale)}`)}</span>`;
  }

  private sortLabel(sort: Sort, order: Order): string {
    switch (`${sort}:${order}`) {
      case 'name:asc':
        return msg('Name (A to Z)');
      case 'name:desc':
        return msg('Name (Z to A)');
      case 'host:asc':
        return msg('Host (A to Z)');
      case 'host:desc':
        return msg('Host (Z to A)');
      case 'last_access:desc':
        return msg('Last access (latest first)');
      case 'last_access:asc':
        return msg('Last access (never or oldest first)');
      case 'status:desc':
        return msg('Status (enabled first)');
      default:
        return msg('Status (disabled first)');
    }
  }

  private pager() {
    const locale = currentLocale();
    const first = (this.starts.length - 1) * PAGE_SIZE + 1;
    const last = first + this.agents.length - 1;
    return html`<nav class="pager" aria-label=${msg('Agent pages')}>
      <span data-testid="range">
        ${msg(str`${formatCount(first, locale)}–${formatCount(last, locale)} of ${formatCount(this.total, locale)}`)}
      </span>
      <button type="button" ?disabled=${this.starts.length <= 1} @click=${() => this.load(this.starts.slice(0, -1))}>
        ${msg('Previous page')}
      </button>
      <button type="button" ?disabled=${!this.next} @click=${() => this.next && this.load([...this.starts, this.next])}>
        ${msg('Next page')}
      </button>
    </nav>`;
  }

  private hostName(hostId: string): string {
    return this.hosts.find((h) => h.host_id === hostId)?.name ?? hostId;
  }

  private async act(action: () => Promise<string>): Promise<void> {
    try {
      toast(this, await action());
      this.error = '';
      await this.load();
    } catch (error) {
      this.error = failureText(error);
    }
  }

  private async keyIssued(event: CustomEvent<KeyIssued>): Promise<void> {
    toast(this, msg(str`Created agent ${event.detail.agent.name}.`));
    await this.load();
    await this.keyDialog.showKey(event.detail.agent.name, event.detail.apiKey);
  }

  private async saved(event: CustomEvent<Agent>): Promise<void> {
    toast(this, msg(str`Saved agent ${event.detail.name}.`));
    await this.load();
  }

  private setEnabled(agent: Agent, enabled: boolean): Promise<void> {
    return this.act(async () => {
      await call('updateAgent', { params: { agent_id: agent.agent_id }, body: { enabled } });
      return enabled ? msg(str`Enabled agent ${agent.name}.`) : msg(str`Disabled agent ${agent.name}.`);
    });
  }

  private async regenerate(agent: Agent): Promise<void> {
    // Without a working key there is nothing to replace, so nothing to confirm.
    const ok =
      agent.key_status !== 'active' ||
      (await this.confirm.ask({
        heading: msg('Issue a new key'),
        text: msg(str`Issue a new API key for ${agent.name}? The current key stops working at once.`),
        confirmLabel: msg('Issue new key'),
        danger: true,
      }));
    if (!ok) return;
    try {
      const { api_key } = await call('regenerateAgentKey', { params: { agent_id: agent.agent_id } });
      toast(this, msg(str`Issued a new key for ${agent.name}.`));
      this.error = '';
      await this.load();
      await this.keyDialog.showKey(agent.name, api_key);
    } catch (error) {
      this.error = failureText(error);
    }
  }

  private async revoke(agent: Agent): Promise<void> {
    const ok = await this.confirm.ask({
      heading: msg('Revoke key'),
      text: msg(str`Revoke the API key of ${agent.name}? The agent cannot authenticate until you issue a new key.`),
      confirmLabel: msg('Revoke key'),
      danger: true,
    });
    if (!ok) return;
    await this.act(async () => {
      await call('revokeAgentKey', { params: { agent_id: agent.agent_id } });
      return msg(str`Revoked the key of ${agent.name}.`);
    });
  }

  private async deleteAgent(agent: Agent): Promise<void> {
    const ok = await this.confirm.ask({
      heading: msg('Delete agent'),
      text: msg(
        str`Delete ${agent.name} for good? Its key stops working at once, it leaves the directory and its groups, and messages waiting for it are dropped. Messages it sent stay in the other participants' history.`,
      ),
      confirmLabel: msg('Delete agent'),
      danger: true,
    });
    if (!ok) return;
    await this.act(async () => {
      await call('deleteAgent', { params: { agent_id: agent.agent_id } });
      return msg(str`Deleted agent ${agent.name}.`);
    });
  }

  private pick(agents: Agent[], on: boolean): void {
    const next = new Map(this.picked);
    for (const a of agents) {
      if (on) next.set(a.agent_id, a);
      else next.delete(a.agent_id);
    }
    this.picked = next;
  }

  private async bulkDone(): Promise<void> {
    this.picked = new Map();
    await this.load();
  }

  private row(agent: Agent) {
    const locale = currentLocale();
    return html`<tr data-agent-id=${agent.agent_id}>
      <td class="pick">
        <input
          type="checkbox"
          aria-label=${msg(str`Select ${agent.name}`)}
          .checked=${this.picked.has(agent.agent_id)}
          @change=${(e: Event) => this.pick([agent], (e.target as HTMLInputElement).checked)}
        />
      </td>
      <td class="name" data-label=${msg('Name')}>
        <a
          class="mono ${nameClass(agent.name)}"
          href=${agentPath(agent.agent_id)}
          @click=${(e: MouseEvent) => followLink(e, agentPath(agent.agent_id))}
          ><strong>${agent.name}</strong></a
        >
      </td>
      <td data-label=${msg('Display name')} class=${agent.display_name ? '' : 'empty'}>${agent.display_name}</td>
      <td data-label=${msg('Host')}>${nameText(this.hostName(agent.host_id))}</td>
      <td data-label=${msg('Status')}>
        ${agent.enabled ? html`<span class="badge ok">${msg('Enabled')}</span>` : html`<span class="badge off">${msg('Disabled')}</span>`}
      </td>
      <td data-label=${msg('API key')}><sb-key-status .agent=${agent}></sb-key-status></td>
      <td data-label=${msg('Last access')}>${agent.last_access_at ? formatTime(agent.last_access_at, locale) : msg('Never')}</td>
      <td data-label=${msg('Inbox')} class=${(this.backlog[agent.agent_id]?.unread ?? 0) > 0 ? 'inbox' : 'inbox empty'}>
        ${this.inbox(agent)}
      </td>
      <td class="row-menu">
        <div class="actions row-actions">
          <button type="button" @click=${() => this.dialog.open(agent)} aria-label=${msg(str`Edit agent ${agent.name}`)}>
            ${msg('Edit')}
          </button>
          <sb-row-menu
            label=${msg(str`More actions for ${agent.name}`)}
            .items=${[
              agent.enabled
                ? {
                    label: msg('Disable'),
                    name: msg(str`Disable agent ${agent.name}`),
                    action: () => this.setEnabled(agent, false),
                  }
                : {
                    label: msg('Enable'),
                    name: msg(str`Enable agent ${agent.name}`),
                    action: () => this.setEnabled(agent, true),
                  },
              // The key actions follow the key's status: no "Revoke" when there is nothing to revoke.
              ...(agent.key_status === 'active'
                ? [
                    {
                      label: msg('New key'),
                      name: msg(str`Issue a new key for ${agent.name}`),
                      action: () => this.regenerate(agent),
                    },
                    {
                      label: msg('Revoke key'),
                      name: msg(str`Revoke the key of ${agent.name}`),
                      danger: true,
                      action: () => this.revoke(agent),
                    },
                  ]
                : [
                    {
                      label: msg('Issue key'),
                      name: msg(str`Issue a key for ${agent.name}`),
                      action: () => this.regenerate(agent),
                    },
                  ]),
              {
                label: msg('Delete'),
                name: msg(str`Delete agent ${agent.name}`),
                danger: true,
                action: () => this.deleteAgent(agent),
              },
            ]}
          ></sb-row-menu>
        </div>
      </td>
    </tr>`;
  }

  override render() {
    const shown = this.agents;
    return html`<div class="toolbar">
        <h1>${msg('Agents')}</h1>
        <button class="primary" type="button" ?disabled=${this.hosts.length === 0} @click=${() => this.dialog.open(null)}>
          ${msg('Add agent')}
        </button>
      </div>
      <form class="filters" role="search" aria-label=${msg('Search and sort agents')} @submit=${(e: Event) => {
        e.preventDefault();
        this.restart(true);
      }}>
        <div class="grow">
          <label for="agent-search">${msg('Search agents')}</label>
          <input
            id="agent-search"
            type="search"
            maxlength=${FIELD_LIMITS.agent_search}
            .value=${live(this.search)}
            @input=${this.onSearch}
            aria-describedby="agent-search-hint"
          />
          <div class="hint" id="agent-search-hint">${msg('Name, display name, description or host.')}</div>
        </div>
        <div>
          <label for="host-filter">${msg('Host')}</label>
          <select
            id="host-filter"
            @change=${(e: Event) => {
              this.hostFilter = (e.target as HTMLSelectElement).value;
              this.restart();
            }}
          >
            <option value="" .selected=${live(!this.hostFilter)}>${msg('All hosts')}</option>
            ${this.hosts.map((h) => html`<option value=${h.host_id} .selected=${this.hostFilter === h.host_id}>${h.name}</option>`)}
          </select>
        </div>
        <div>
          <label for="last-access-filter">${msg('Last access')}</label>
          <select
            id="last-access-filter"
            @change=${(e: Event) => {
              this.lastAccess = (e.target as HTMLSelectElement).value as LastAccess | '';
              this.restart();
            }}
          >
            <option value="" .selected=${live(!this.lastAccess)}>${msg('Any time')}</option>
            ${LAST_ACCESS.map((b) => html`<option value=${b} .selected=${this.lastAccess === b}>${this.lastAccessLabel(b)}</option>`)}
          </select>
        </div>
        <div>
          <label for="key-state-filter">${msg('API key')}</label>
          <select
            id="key-state-filter"
            @change=${(e: Event) => {
              this.keyState = (e.target as HTMLSelectElement).value as KeyState | '';
              this.restart();
            }}
          >
            <option value="" .selected=${live(!this.keyState)}>${msg('Any key state')}</option>
            ${KEY_STATES.map((k) => html`<option value=${k} .selected=${this.keyState === k}>${this.keyStateLabel(k)}</option>`)}
          </select>
        </div>
        <div>
          <label for="agent-sort">${msg('Sort by')}</label>
          <select
            id="agent-sort"
            @change=${(e: Event) => {
              this.sort = (e.target as HTMLSelectElement).value as typeof this.sort;
              this.restart();
            }}
          >
            ${SORTS.map(
              ([sort, order]) =>
                html`<option value="${sort}:${order}" .selected=${this.sort === `${sort}:${order}`}>${this.sortLabel(sort, order)}</option>`,
            )}
          </select>
        </div>
      </form>
      ${this.error ? html`<p class="notice error" role="alert">${this.error}</p>` : ''}
      ${this.failure ? renderFailure(msg('The agents could not be loaded.'), this.failure.error, this.failure.retry) : ''}
      ${!this.loaded && !this.failure ? renderLoading() : ''}
      ${this.loaded ? html`<sb-agent-bulk .selected=${[...this.picked.values()]} @sb-bulk-done=${this.bulkDone}></sb-agent-bulk>` : ''}
      ${this.loaded && this.hosts.length === 0 ? html`<p class="muted">${msg('Add a host first: every agent belongs to one.')}</p>` : ''}
      ${
        !this.loaded
          ? ''
          : shown.length === 0
            ? html`<p class="muted">${msg('No agents to show.')}</p>`
            : html`<table class="stack">
              <thead>
                <tr>
                  <th scope="col" class="pick">
                    <input
                      type="checkbox"
                      aria-label=${msg('Select every agent on this page')}
                      .checked=${shown.every((a) => this.picked.has(a.agent_id))}
                      @change=${(e: Event) => this.pick(shown, (e.target as HTMLInputElement).checked)}
                    />
                  </th>
                  <th scope="col">${msg('Name')}</th>
                  <th scope="col">${msg('Display name')}</th>
                  <th scope="col">${msg('Host')}</th>
                  <th scope="col">${msg('Status')}</th>
                  <th scope="col">${msg('API key')}</th>
                  <th scope="col">${msg('Last access')}</th>
                  <th scope="col">${msg('Inbox')}</th>
                  <th scope="col"><span class="visually-hidden">${msg('Actions')}</span></th>
                </tr>
              </thead>
              <tbody>
                ${shown.map((a) => this.row(a))}
              </tbody>
            </table>
            ${this.loaded && this.total > 0 ? this.pager() : ''}`
      }
      <sb-agent-dialog .hosts=${this.hosts} @sb-saved=${this.saved} @sb-key-issued=${this.keyIssued}></sb-agent-dialog>
      <sb-key-dialog></sb-key-dialog>
      <sb-confirm></sb-confirm>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'sb-agents': SbAgents;
  }
}
