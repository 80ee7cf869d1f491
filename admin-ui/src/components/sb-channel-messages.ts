import { localized, msg, str } from '@lit/localize';
import { css, html, LitElement } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import { isPreviewable } from '../../../core/lib/media-types.js';
import { type AdminChannel, type AdminMessage, call } from '../api.js';
import { icons } from '../icons.js';
import { attachmentUrl } from '../lib/attachment-url.js';
import { channelTitle, participantLabel } from '../lib/channel-filters.js';
import { formatByteCount, formatBytes, formatCount, formatTime } from '../lib/format.js';
import { channelListPath, followLink } from '../lib/navigate.js';
import { pathFor } from '../lib/route.js';
import { type LoadFailure, renderFailure, renderLoading } from '../load-state.js';
import { currentLocale } from '../localization.js';
import { shared } from '../styles/shared.js';

/**
 * One channel's retained messages, read-only (REQ-54): whoever takes part, with each attachment's
 * metadata (file name, media type, size, SHA-256), a download link and, for raster images only, a
 * preview. The admin route never claims and never marks
 * anything read, so an agent's inbox is the same before and after an administrator looks.
 */
@localized()
@customElement('sb-channel-messages')
export class SbChannelMessages extends LitElement {
  static override styles = [
    shared,
    css`
      h1 {
        display: flex;
        align-items: center;
        gap: 0.5rem;
        overflow-wrap: anywhere;
      }
      h1:focus {
        outline: none;
      }
      dl.summary {
        display: grid;
        grid-template-columns: repeat(auto-fill, minmax(10rem, 1fr));
        gap: 0.5rem 1rem;
        margin: 0 0 1rem;
      }
      dl.summary dt {
        color: var(--sb-muted);
        font-size: 0.85rem;
      }
      dl.summary dd {
        margin: 0;
      }
      ol.messages {
        list-style: none;
        margin: 0;
        padding: 0;
        display: flex;
        flex-direction: column;
        gap: 0.6rem;
      }
      ol.messages > li {
        border: 1px solid var(--sb-border);
        background: var(--sb-surface);
        border-radius: 8px;
        padding: 0.6rem 0.8rem;
      }
      .meta {
        display: flex;
        flex-wrap: wrap;
        gap: 0.25rem 0.75rem;
        align-items: baseline;
        font-size: 0.875rem;
        color: var(--sb-muted);
      }
      .meta .sender {
        color: var(--sb-text);
        font-weight: 600;
      }
      .body {
        white-space: pre-wrap;
        overflow-wrap: anywhere;
        margin: 0.35rem 0 0;
      }
      .attachment {
        margin: 0.5rem 0 0;
        padding: 0.5rem 0.7rem;
        border: 1px dashed var(--sb-border-strong);
        border-radius: 6px;
        font-size: 0.9rem;
      }
      .attachment dl {
        display: grid;
        grid-template-columns: auto 1fr;
        gap: 0.15rem 0.75rem;
        margin: 0.35rem 0 0;
      }
      .attachment dt {
        color: var(--sb-muted);
      }
      .attachment dd {
        margin: 0;
        min-width: 0;
        overflow-wrap: anywhere;
      }
      .attachment .caption {
        display: flex;
        align-items: center;
        gap: 0.4rem;
        font-weight: 600;
      }
      .attachment .actions {
        display: flex;
        flex-wrap: wrap;
        gap: 0.5rem;
        align-items: flex-start;
        margin-top: 0.35rem;
      }
      .attachment img.preview {
        display: block;
        max-width: min(100%, 24rem);
        max-height: 16rem;
        border: 1px solid var(--sb-border);
        border-radius: 4px;
        background: var(--sb-surface);
      }
      .order {
        width: auto;
      }
      .reply {
        margin: 0.25rem 0 0;
        font-size: 0.875rem;
        color: var(--sb-muted);
      }
      ol.messages > li:focus {
        outline: 2px solid var(--sb-focus, currentColor);
      }
      .thread-bar {
        display: flex;
        flex-wrap: wrap;
        gap: 0.5rem;
        align-items: center;
        margin: 0 0 0.75rem;
      }
      button.link {
        background: none;
        border: none;
        padding: 0;
        color: var(--sb-link, inherit);
        text-decoration: underline;
        cursor: pointer;
        font: inherit;
      }
    `,
  ];

  @property({ attribute: 'channel-id' }) channelId = '';
  @state() private channel: AdminChannel | null = null;
  @state() private messages: AdminMessage[] = [];
  @state() private next: string | null = null;
  /** The thread filter: one thread's retained messages (its root's ID), or all. */
  @state() private thread: string | null = null;
  /** The messages this page answers: their seq while retained, null once deleted. */
  @state() private replied = new Map<string, number | null>();
  @state() private order: 'asc' | 'desc' = 'asc';
  @state() private loaded = false;
  @state() private loading = false;
  @state() private failure: LoadFailure | null = null;
  private generation = 0;

  override connectedCallback(): void {
    super.connectedCallback();
    void this.load().then(() => this.focusHeading());
  }

  /** Lands keyboard and screen-reader users on the channel they opened. */
  private async focusHeading(): Promise<void> {
    await this.updateComplete;
    this.renderRoot.querySelector<HTMLElement>('h1')?.focus();
  }

  private async load(more = false): Promise<void> {
    const generation = ++this.generation;
    this.loading = true;
    try {
      const page = await call('listAdminChannelMessages', {
        params: { channel_id: this.channelId },
        query: {
          order: this.order,
          cursor: more ? (this.next ?? undefined) : undefined,
          ...(this.thread && { thread_id: this.thread }),
        },
      });
      if (generation !== this.generation) return;
      this.channel = page.channel;
      const replied = more ? new Map(this.replied) : new Map<string, number | null>();
      for (const r of page.replied_to) replied.set(r.message_id, r.seq);
      this.replied = replied;
      this.messages = more ? [...this.messages, ...page.messages] : page.messages;
      this.next = page.next_cursor;
      this.failure = null;
      this.loaded = true;
    } catch (error) {
      if (generation === this.generation) this.failure = { error, retry: () => this.load(more) };
    } finally {
      if (generation === this.generation) this.loading = false;
    }
  }

  private senderName(senderId: string): string {
    const p = this.channel?.participants.find((x) => x.agent_id === senderId);
    return p ? participantLabel(p) : senderId;
  }

  private summary(channel: AdminChannel) {
    const locale = currentLocale();
    const owner = channel.participants.find((p) => p.agent_id === channel.owner_id);
    return html`<dl class="summary">
      <div>
        <dt>${msg('Kind')}</dt>
        <dd>${channel.kind === 'group' ? msg('Group conversation') : msg('Private conversation')}</dd>
      </div>
      ${
        channel.kind === 'group'
          ? html`<div>
              <dt>${msg('Owner')}</dt>
              <dd>${owner ? participantLabel(owner) : msg('None')}</dd>
            </div>`
          : ''
      }
      <div>
        <dt>${msg('Participants')}</dt>
        <dd>${channel.participants.map(participantLabel).join(', ')}</dd>
      </div>
      <div>
        <dt>${msg('Messages')}</dt>
        <dd>${formatCount(channel.message_count, locale)}</dd>
      </div>
      <div>
        <dt>${msg('Files')}</dt>
        <dd>${formatCount(channel.file_count, locale)}</dd>
      </div>
      <div>
        <dt>${msg('Last activity')}</dt>
        <dd>${channel.last_message_at ? formatTime(channel.last_message_at, locale) : msg('No messages yet')}</dd>
      </div>
    </dl>`;
  }

  private attachment(message: AdminMessage) {
    const file = message.attachment;
    if (!file) return '';
    const locale = currentLocale();
    // A <dl> may hold only dt/dd (or div groups of them): the caption and the actions sit beside it.
    return html`<div class="attachment" role="group" aria-label=${msg(str`Attachment ${file.filename}`)}>
      <div class="caption">${icons.attachment}<span>${msg('Attachment')}</span></div>
      <dl>
      <dt>${msg('File name')}</dt>
      <dd>${file.filename}</dd>
      <dt>${msg('Media type')}</dt>
      <dd class="mono token">${file.media_type}</dd>
      <dt>${msg('Size')}</dt>
      <dd>
        ${
          // The exact count always; a rounded figure too once it says something shorter.
          file.size < 1000
            ? formatByteCount(file.size, locale)
            : `${formatBytes(file.size, locale)} (${formatByteCount(file.size, locale)})`
        }
      </dd>
      <dt>SHA-256</dt>
      <dd class="mono token">${file.sha256}</dd>
      </dl>
      <div class="actions">
        <a
          class="button"
          href=${attachmentUrl(message.channel_id, file.file_id)}
          download=${file.filename}
          aria-label=${msg(str`Download ${file.filename}`)}
          >${msg('Download')}</a
        >
      </div>
      ${
        // Raster images only: the server refuses to serve anything else inline, and an SVG or an
        // HTML file is never put in an <img> or a frame here either.
        isPreviewable(file.media_type)
          ? html`<div class="actions">
              <img
                class="preview"
                src=${attachmentUrl(message.channel_id, file.file_id, 'inline')}
                alt=${msg(str`Preview of ${file.filename}`)}
                loading="lazy"
              />
            </div>`
          : ''
      }
    </div>`;
  }

  private async showThread(threadId: string | null, focusId?: string): Promise<void> {
    this.thread = threadId;
    await this.load();
    if (focusId) await this.focusMessage(focusId);
  }

  private async focusMessage(messageId: string): Promise<boolean> {
    await this.updateComplete;
    const item = this.renderRoot.querySelector<HTMLElement>(`li[data-message-id="${messageId}"]`);
    if (!item) return false;
    item.scrollIntoView({ block: 'center' });
    item.focus();
    return true;
  }

  /** To the answered message: on this page if it is here, else within its thread. */
  private async jumpTo(message: AdminMessage): Promise<void> {
    const target = message.reply_to;
    if (!target) return;
    if (!(await this.focusMessage(target))) await this.showThread(message.thread_id, target);
  }

  private replyLine(message: AdminMessage) {
    if (!message.reply_to) return '';
    const seq = this.replied.get(message.reply_to);
    if (seq === null || seq === undefined) {
      return html`<p class="reply">${msg('In reply to a message that was deleted.')}</p>`;
    }
    const sender = this.messages.find((m) => m.message_id === message.reply_to);
    return html`<p class="reply">
      <button type="button" class="link" @click=${() => this.jumpTo(message)}>
        ${
          sender
            ? msg(str`In reply to #${seq} from ${this.senderName(sender.sender_id)}`)
            : msg(str`In reply to #${seq}`)
        }
      </button>
    </p>`;
  }

  private message(message: AdminMessage) {
    const locale = currentLocale();
    return html`<li data-message-id=${message.message_id} tabindex="-1">
      <article aria-label=${msg(str`Message ${message.seq} from ${this.senderName(message.sender_id)}`)}>
        <div class="meta">
          <span class="sender">${this.senderName(message.sender_id)}</span>
          <time datetime=${message.created_at}>${formatTime(message.created_at, locale)}</time>
          <span>#${message.seq}</span>
          ${
            this.thread
              ? ''
              : html`<button type="button" class="link" @click=${() => this.showThread(message.thread_id, message.message_id)}>
                  ${msg('Show thread')}
                </button>`
          }
        </div>
        ${this.replyLine(message)}
        <p class="body">${message.body}</p>
        ${this.attachment(message)}
      </article>
    </li>`;
  }

  override render() {
    const channel = this.channel;
    // Back to the list as it was: its filters are part of its address.
    const listPath = channelListPath(pathFor('channels'));
    return html`<p>
        <a href=${listPath} @click=${(e: MouseEvent) => followLink(e, listPath)}>← ${msg('All channels')}</a>
      </p>
      <h1 tabindex="-1">
        ${channel ? (channel.kind === 'group' ? icons.group : icons.private) : icons.channels}
        <span>${channel ? channelTitle(channel) : msg('Channel messages')}</span>
      </h1>
      <p class="notice">${msg('Read-only: reading here claims nothing and marks nothing read. Deleted messages cannot be shown.')}</p>
      ${this.failure ? renderFailure(msg('The messages could not be loaded.'), this.failure.error, this.failure.retry) : ''}
      ${channel ? this.summary(channel) : ''}
      <div class="toolbar">
        <h2>${msg('Messages')}</h2>
        <div>
          <label for="order">${msg('Order')}</label>
          <select
            id="order"
            class="order"
            @change=${(e: Event) => {
              this.order = (e.target as HTMLSelectElement).value === 'desc' ? 'desc' : 'asc';
              void this.load();
            }}
          >
            <option value="asc" .selected=${this.order === 'asc'}>${msg('Oldest first')}</option>
            <option value="desc" .selected=${this.order === 'desc'}>${msg('Newest first')}</option>
          </select>
        </div>
      </div>
      ${
        this.thread
          ? html`<p class="thread-bar notice" data-testid="thread-bar">
              <span>${msg('Showing one thread.')}</span>
              <button type="button" @click=${() => this.showThread(null)}>${msg('Show all messages')}</button>
            </p>`
          : ''
      }
      ${
        !this.loaded
          ? this.failure
            ? ''
            : renderLoading()
          : this.messages.length === 0
            ? html`<p class="muted">${msg('This channel has no retained messages.')}</p>`
            : html`<ol class="messages" aria-label=${msg('Messages')}>
              ${this.messages.map((m) => this.message(m))}
            </ol>`
      }
      ${
        this.next
          ? html`<p>
              <button type="button" @click=${() => this.load(true)} ?disabled=${this.loading}>${msg('Show more')}</button>
            </p>`
          : ''
      }`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'sb-channel-messages': SbChannelMessages;
  }
}
