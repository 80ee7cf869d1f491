import { localized, msg, str } from '@lit/localize';
import { css, html, LitElement } from 'lit';
import { customElement, state } from 'lit/decorators.js';
import { type AdminChannel, call, type QueryOf } from '../api.js';
import { icons } from '../icons.js';
import { agentsByIds, searchAgents } from '../lib/agent-directory.js';
import type { AgentChoice } from '../lib/agent-search.js';
import {
  type ChannelFilters,
  type ChannelTab,
  channelQuery,
  channelTitle,
  filtersFromSearch,
  filtersToSearch,
  MAX_PARTICIPANT_FILTER,
  MAX_PRIVATE_PARTICIPANTS,
  participantLabel,
} from '../lib/channel-filters.js';
import { formatCount, formatTime } from '../lib/format.js';
import { ListAddress } from '../lib/list-address.js';
import { followLink, rememberChannelList } from '../lib/navigate.js';
import { pathFor } from '../lib/route.js';
import { type LoadFailure, renderFailure } from '../load-state.js';
import { currentLocale } from '../localization.js';
import { shared } from '../styles/shared.js';
import './sb-agent-list-picker.js';
import './sb-agent-combobox.js';
import { FIELD_LIMITS } from '../../../core/lib/limits.js';

const TABS: readonly ChannelTab[] = ['private', 'group'];

/**
 * Channels (REQ-54, REQ-58, REQ-59): private and group conversations in separate tabs, each with
 * its identity filters (participants; for groups also the owner) and a search over retained
 * message content that never looks at names. The filters live in the address, so the way back
 * from a channel's messages shows the same list. Nothing here claims or marks anything read.
 */
@localized()
@customElement('sb-channels')
export class SbChannels extends LitElement {
  static override styles = [
    shared,
    css`
      [role='tablist'] {
        display: flex;
        gap: 0.25rem;
        border-bottom: 1px solid var(--sb-border);
        margin-bottom: 1rem;
        overflow-x: auto;
      }
      [role='tab'] {
        border: 1px solid transparent;
        border-bottom: none;
        border-radius: 8px 8px 0 0;
        background: none;
        padding: 0.55rem 0.9rem;
        margin-bottom: -1px;
        white-space: nowrap;
      }
      [role='tab'][aria-selected='true'] {
        border-color: var(--sb-border);
        background: var(--sb-surface);
        color: var(--sb-accent);
        font-weight: 600;
      }
      form.filters {
        display: grid;
        grid-template-columns: repeat(auto-fit, minmax(15rem, 1fr));
        gap: 0.75rem 1rem;
        align-items: start;
        margin-bottom: 0.75rem;
      }
      .search-row {
        display: flex;
        gap: 0.5rem;
      }
      .search-row input {
        flex: 1;
        min-width: 0;
      }
      .title {
        display: inline-flex;
        align-items: center;
        gap: 0.45rem;
        font-weight: 600;
      }
      ul.people {
        margin: 0;
        padding: 0;
        list-style: none;
      }
      .num {
        font-variant-numeric: tabular-nums;
      }
      .status-line {
        min-height: 1.5rem;
      }
      a.read {
        white-space: nowrap;
      }
      p.snippet {
        margin: 0.3rem 0 0;
        max-width: 36rem;
        font-size: 0.875rem;
        color: var(--sb-muted);
        white-space: pre-wrap;
        overflow-wrap: anywhere;
      }
      p.snippet mark {
        background: var(--sb-highlight, #fde68a);
        color: #1f2937;
        border-radius: 2px;
        padding: 0 0.1em;
      }
      /* A phone: both tabs share the row, their labels wrap instead of scrolling away. */
      @media (max-width: 720px) {
        [role='tab'] {
          flex: 1 1 0;
          white-space: normal;
          justify-content: center;
          text-align: center;
        }
      }
    `,
  ];

  @state() private filters: ChannelFilters = filtersFromSearch(location.search);
  @state() private draft = this.filters.text;
  /**
   * The agents this page can name: the filters' chosen ones (looked up by ID) and every
   * participant of the channels shown. The pickers ask the server as the administrator types.
   */
  @state() private known: readonly AgentChoice[] = [];
  @state() private channels: AdminChannel[] = [];
  @state() private next: string | null = null;
  @state() private scanned = 0;
  @state() private loaded = false;
  @state() private loading = false;
  /** A filter that cannot be asked for; a failed load is `failure`. */
  @state() private error = '';
  @state() private failure: LoadFailure | null = null;
  /** Answers to superseded requests (the filters changed meanwhile) are dropped. */
  private generation = 0;
  /** Back and Forward (and a console link to this page) show the list the address names. */
  private readonly address = new ListAddress(this, pathFor('channels'), (search) => {
    this.filters = filtersFromSearch(search);
    this.draft = this.filters.text;
    rememberChannelList(pathFor('channels') + search);
    void this.load();
    void this.nameFilterAgents();
  });

  override connectedCallback(): void {
    super.connectedCallback();
    rememberChannelList(pathFor('channels') + filtersToSearch(this.filters));
    void this.load();
    void this.nameFilterAgents();
  }

  private get agents(): readonly AgentChoice[] {
    return this.known;
  }

  private remember(agents: readonly AgentChoice[]): void {
    const known = new Map(this.known.map((a) => [a.agent_id, a]));
    let added = false;
    for (const a of agents) {
      if (!known.has(a.agent_id)) added = true;
      known.set(a.agent_id, a);
    }
    if (added) this.known = [...known.values()];
  }

  /** Names for the filters' agents that this page has not met yet (an address opened as a link). */
  private async nameFilterAgents(): Promise<void> {
    const known = new Set(this.known.map((a) => a.agent_id));
    const ids = [...this.filters.participants, this.filters.owner].filter((id) => id && !known.has(id));
    if (ids.length > 0) this.remember(await agentsByIds(ids));
  }

  private apply(filters: ChannelFilters): void {
    this.filters = filters;
    const search = filtersToSearch(filters);
    this.address.write(search);
    rememberChannelList(pathFor('channels') + search);
    void this.load();
  }

  private async load(more = false): Promise<void> {
    const built = channelQuery(this.filters, more ? (this.next ?? undefined) : undefined);
    const generation = ++this.generation;
    if (!built.ok) {
      this.error =
        built.problem === 'too_many_participants'
          ? msg('A private conversation has two participants: pick at most two agents.')
          : msg('Pick agents from the list.');
      this.channels = [];
      this.next = null;
      this.failure = null;
      this.loaded = true;
      return;
    }
    this.loading = true;
    try {
      const page = await call('listAdminChannels', { query: built.query as QueryOf<'listAdminChannels'> });
      if (generation !== this.generation) return;
      this.channels = more ? [...this.channels, ...page.channels] : page.channels;
      this.remember(
        page.channels.flatMap((c) =>
          c.participants.flatMap((p) =>
            p.name === null ? [] : [{ agent_id: p.agent_id, name: p.name, display_name: p.display_name ?? p.name }],
          ),
        ),
      );
      this.scanned = (more ? this.scanned : 0) + page.scanned;
      this.next = page.next_cursor;
      this.error = '';
      this.failure = null;
      this.loaded = true;
    } catch (error) {
      if (generation !== this.generation) return;
      this.failure = { error, retry: () => this.load(more) };
    } finally {
      if (generation === this.generation) this.loading = false;
    }
  }

  private selectTab(tab: ChannelTab, focus = false): void {
    if (tab !== this.filters.tab) {
      // Identity filters belong to their tab; the search text carries over.
      this.apply({ tab, participants: [], owner: '', text: this.filters.text });
    }
    if (focus) void this.updateComplete.then(() => this.renderRoot.querySelector<HTMLElement>(`#tab-${tab}`)?.focus());
  }

  /** Arrow keys, Home and End move between the tabs (WAI-ARIA tabs pattern, automatic activation). */
  private onTabKey(event: KeyboardEvent): void {
    const at = TABS.indexOf(this.filters.tab);
    const target =
      event.key === 'ArrowRight'
        ? TABS[(at + 1) % TABS.length]
        : event.key === 'ArrowLeft'
          ? TABS[(at - 1 + TABS.length) % TABS.length]
          : event.key === 'Home'
            ? TABS[0]
            : event.key === 'End'
              ? TABS[TABS.length - 1]
              : undefined;
    if (!target) return;
    event.preventDefault();
    this.selectTab(target, true);
  }

  private search(event: Event): void {
    event.preventDefault();
    this.apply({ ...this.filters, text: this.draft.trim() });
  }

  private clearSearch(): void {
    this.draft = '';
    this.apply({ ...this.filters, text: '' });
  }

  private tabLabel(tab: ChannelTab) {
    return tab === 'private' ? msg('Private conversations') : msg('Group conversations');
  }

  private filterForm() {
    const tab = this.filters.tab;
    const searching = this.filters.text !== '';
    return html`<form class="filters" role="search" aria-label=${msg('Filter and search channels')} @submit=${this.search}>
      <sb-agent-list-picker
        .label=${msg('Participants')}
        .hint=${
          tab === 'private'
            ? msg('Only conversations that include every agent listed (at most two).')
            : msg('Only groups that include every agent listed: members, invitees or former members.')
        }
        .agents=${this.agents}
        .search=${searchAgents}
        .selected=${this.filters.participants}
        .max=${tab === 'private' ? MAX_PRIVATE_PARTICIPANTS : MAX_PARTICIPANT_FILTER}
        @sb-change=${(e: CustomEvent<string[]>) => this.apply({ ...this.filters, participants: e.detail })}
      ></sb-agent-list-picker>
      ${
        tab === 'group'
          ? html`<sb-agent-combobox
              id="owner-filter"
              .label=${msg('Owner')}
              .placeholder=${msg('Any owner')}
              .agents=${this.agents}
              .search=${searchAgents}
              .value=${this.filters.owner}
              @sb-change=${(e: CustomEvent<string>) => this.apply({ ...this.filters, owner: e.detail })}
            ></sb-agent-combobox>`
          : ''
      }
      <div>
        <label for="content-search">${msg('Search message content')}</label>
        <div class="search-row">
          <input
            id="content-search"
            type="search"
            maxlength=${FIELD_LIMITS.content_search}
            aria-describedby="content-search-hint"
            .value=${this.draft}
            @input=${(e: Event) => {
              this.draft = (e.target as HTMLInputElement).value;
            }}
          />
          <button type="submit" class="primary">${msg('Search')}</button>
        </div>
        <p class="hint" id="content-search-hint">
          ${msg('Finds text in retained messages, ignoring upper and lower case. Names are not searched: use the filters.')}
        </p>
        ${searching ? html`<button type="button" @click=${this.clearSearch}>${msg('Clear search')}</button>` : ''}
      </div>
    </form>`;
  }

  private readLink(channel: AdminChannel, title: string) {
    const path = pathFor('channels', channel.channel_id);
    return html`<a
      class="read button"
      href=${path}
      @click=${(e: MouseEvent) => followLink(e, path)}
      >${msg('Read messages')}<span class="visually-hidden"> (${title})</span></a
    >`;
  }

  private participantList(channel: AdminChannel) {
    return html`<ul class="people">
      ${channel.participants.map((p) => {
        const mark =
          p.role === 'owner'
            ? msg('owner')
            : p.state === 'pending'
              ? msg('invited')
              : p.state === 'left'
                ? msg('left')
                : '';
        return html`<li>${participantLabel(p)}${mark ? html` <span class="badge off">${mark}</span>` : ''}</li>`;
      })}
    </ul>`;
  }

  /**
   * The newest matching message, cut around the match. The server sends before/match/after as
   * plain strings and each is bound as text, the match inside <mark>: message text is never
   * parsed as markup.
   */
  private snippet(channel: AdminChannel) {
    const snippet = channel.snippet;
    if (!snippet) return '';
    // One line: the paragraph keeps the message's own line breaks (pre-wrap), so no template ones.
    const match = snippet.match ? html`<mark>${snippet.match}</mark>` : '';
    return html`<p class="snippet" data-message-id=${snippet.message_id}>${snippet.before}${match}${snippet.after}</p>`;
  }

  private row(channel: AdminChannel) {
    const locale = currentLocale();
    const group = channel.kind === 'group';
    const title = channelTitle(channel);
    const owner = channel.participants.find((p) => p.agent_id === channel.owner_id);
    return html`<tr data-channel-id=${channel.channel_id}>
      <td data-label=${group ? msg('Group') : msg('Conversation')}>
        <span class="title">${group ? icons.group : icons.private}<span>${title}</span></span>
        <div class="hint mono token">${channel.channel_id}</div>
      </td>
      ${
        group
          ? html`<td data-label=${msg('Owner')}>${owner ? participantLabel(owner) : html`<span class="muted">${msg('None')}</span>`}</td>
              <td data-label=${msg('Participants')}>${this.participantList(channel)}</td>`
          : ''
      }
      <td data-label=${msg('Messages')} class="num">${formatCount(channel.message_count, locale)}</td>
      <td data-label=${msg('Files')} class="num">${formatCount(channel.file_count, locale)}</td>
      <td data-label=${msg('Last activity')}>
        ${
          channel.last_message_at
            ? html`<time datetime=${channel.last_message_at}>${formatTime(channel.last_message_at, locale)}</time>`
            : html`<span class="muted">${msg('No messages yet')}</span>`
        }
      </td>
      ${
        this.filters.text
          ? html`<td data-label=${msg('Matching messages')}>
              <span class="num">${formatCount(channel.matching_messages ?? 0, locale)}</span>
              ${this.snippet(channel)}
            </td>`
          : ''
      }
      <td>${this.readLink(channel, title)}</td>
    </tr>`;
  }

  private table() {
    const group = this.filters.tab === 'group';
    return html`<table class="stack">
      <thead>
        <tr>
          <th scope="col">${group ? msg('Group') : msg('Conversation')}</th>
          ${group ? html`<th scope="col">${msg('Owner')}</th><th scope="col">${msg('Participants')}</th>` : ''}
          <th scope="col">${msg('Messages')}</th>
          <th scope="col">${msg('Files')}</th>
          <th scope="col">${msg('Last activity')}</th>
          ${this.filters.text ? html`<th scope="col">${msg('Matching messages')}</th>` : ''}
          <th scope="col"><span class="visually-hidden">${msg('Actions')}</span></th>
        </tr>
      </thead>
      <tbody>
        ${this.channels.map((c) => this.row(c))}
      </tbody>
    </table>`;
  }

  private statusLine() {
    // Before the first page: "Loading…", unless it failed (then the failure says so, below).
    if (!this.loaded) return this.failure ? '' : msg('Loading…');
    const locale = currentLocale();
    const shown = formatCount(this.channels.length, locale);
    if (!this.filters.text) return msg(str`Channels shown: ${shown}.`);
    const searched = formatCount(this.scanned, locale);
    return this.next
      ? msg(str`Channels with matches: ${shown}. Channels searched so far: ${searched}; more remain.`)
      : msg(str`Channels with matches: ${shown}. Channels searched: ${searched}.`);
  }

  override render() {
    const tab = this.filters.tab;
    const searching = this.filters.text !== '';
    return html`<h1>${msg('Channels')}</h1>
      <div role="tablist" aria-label=${msg('Channel kinds')} @keydown=${this.onTabKey}>
        ${TABS.map(
          (t) => html`<button
            type="button"
            role="tab"
            id="tab-${t}"
            aria-selected=${t === tab ? 'true' : 'false'}
            aria-controls="channel-panel"
            tabindex=${t === tab ? '0' : '-1'}
            @click=${() => this.selectTab(t)}
          >
            ${t === 'private' ? icons.private : icons.group} ${this.tabLabel(t)}
          </button>`,
        )}
      </div>
      <section id="channel-panel" role="tabpanel" aria-labelledby="tab-${tab}">
        ${this.filterForm()}
        <p class="status-line muted" role="status" aria-live="polite">${this.statusLine()}</p>
        ${this.error ? html`<p class="notice error" role="alert">${this.error}</p>` : ''}
        ${this.failure ? renderFailure(msg('The channels could not be loaded.'), this.failure.error, this.failure.retry) : ''}
        ${
          this.loaded && this.channels.length === 0
            ? html`<p class="muted">
                ${
                  searching
                    ? msg('No channel among those searched has a retained message with this text.')
                    : tab === 'private'
                      ? msg('No private conversations to show.')
                      : msg('No group conversations to show.')
                }
              </p>`
            : this.channels.length > 0
              ? this.table()
              : ''
        }
        ${
          this.next
            ? html`<p>
                <button type="button" @click=${() => this.load(true)} ?disabled=${this.loading}>
                  ${searching ? msg('Search further') : msg('Show more')}
                </button>
              </p>`
            : ''
        }
      </section>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'sb-channels': SbChannels;
  }
}
