import { localized, msg, str } from '@lit/localize';
import { css, html, LitElement, type PropertyValues } from 'lit';
import { customElement, property, query, state } from 'lit/decorators.js';
import type { AgentMatches } from '../lib/agent-directory.js';
import { type AgentChoice, agentMatches, MAX_SHOWN } from '../lib/agent-search.js';
import { agentLabel } from '../lib/channel-filters.js';
import { formatCount } from '../lib/format.js';
import { currentLocale } from '../localization.js';
import { shared } from '../styles/shared.js';

let nextId = 0;

/**
 * Picks one agent out of hundreds by typing: the WAI-ARIA combobox pattern with a
 * listbox popup. The focus stays in the text box; aria-activedescendant names the highlighted
 * option; Down/Up move, Enter picks, Escape closes (and, when already closed, restores the text of
 * the current choice). Only the first MAX_SHOWN matches are rendered, so a fleet of thousands
 * costs no more than a short list. With `search`, the matches come from the server as the
 * administrator types (debounced, the latest answer wins), and `agents` only names the agents the
 * page knows already (the current choice); without it, `agents` is the whole list, matched here.
 * Fires `sb-change` with the agent ID, or '' when cleared.
 */
@localized()
@customElement('sb-agent-combobox')
export class SbAgentCombobox extends LitElement {
  static override styles = [
    shared,
    css`
      :host {
        display: block;
        position: relative;
      }
      [role='listbox'] {
        position: absolute;
        z-index: 20;
        inset-inline: 0;
        margin: 0.2rem 0 0;
        padding: 0.2rem 0;
        list-style: none;
        max-height: 16rem;
        overflow-y: auto;
        background: var(--sb-surface);
        border: 1px solid var(--sb-border-strong);
        border-radius: 6px;
        box-shadow: 0 6px 18px rgb(0 0 0 / 0.18);
      }
      [role='option'] {
        padding: 0.4rem 0.6rem;
        cursor: pointer;
        white-space: nowrap;
        overflow: hidden;
        text-overflow: ellipsis;
      }
      [role='option'][aria-selected='true'] {
        background: var(--sb-accent-soft);
        outline: 2px solid var(--sb-focus);
        outline-offset: -2px;
      }
      .more {
        padding: 0.3rem 0.6rem;
        font-size: 0.85rem;
      }
    `,
  ];

  @property() label = '';
  @property() hint = '';
  /** Shown in the empty box: what no choice means here ('Any owner', 'Choose an agent'). */
  @property() placeholder = '';
  @property({ attribute: false }) agents: readonly AgentChoice[] = [];
  /** The server's matches for typed text (lib/agent-directory.ts searchAgents); see the class comment. */
  @property({ attribute: false }) search: ((text: string) => Promise<AgentMatches>) | undefined;
  /** Agents never offered (those already in a list being built). */
  @property({ attribute: false }) exclude: readonly string[] = [];
  /** The chosen agent ID ('' for none). */
  @property() value = '';
  /** Keep the box empty after a pick (adding to a list rather than choosing one value). */
  @property({ type: Boolean }) clearOnPick = false;
  @property({ type: Boolean }) disabled = false;
  @state() private text = '';
  @state() private open = false;
  @state() private active = -1;
  /** The server's answer for `remoteText`; null until the first one. */
  @state() private remote: AgentMatches | null = null;
  /** The last search failed (shown in the list; typing again asks again). */
  @state() private searchFailed = false;
  /** Enter came before the server's matches for the typed text. */
  private enterPending = false;
  private remoteText: string | null = null;
  private searchTimer: ReturnType<typeof setTimeout> | undefined;
  private searchGeneration = 0;
  /** Agents the server offered here, so a picked one keeps its name. */
  private readonly seen = new Map<string, AgentChoice>();
  @query('input') private input!: HTMLInputElement;
  private readonly uid = `combo-${nextId++}`;

  private get names(): ReadonlyMap<string, AgentChoice> {
    const names = new Map(this.seen);
    for (const a of this.agents) names.set(a.agent_id, a);
    return names;
  }

  /** Asks the server for `text`'s matches after a short pause in typing; a newer ask wins. */
  private requestMatches(text: string): void {
    if (!this.search || text === this.remoteText) return;
    clearTimeout(this.searchTimer);
    const generation = ++this.searchGeneration;
    this.searchTimer = setTimeout(async () => {
      try {
        const answer = await this.search?.(text);
        if (!answer || generation !== this.searchGeneration) return;
        for (const a of answer.agents) this.seen.set(a.agent_id, a);
        this.remoteText = text;
        this.remote = answer;
        this.searchFailed = false;
        // Enter pressed while the matches were on their way picks the first of them now.
        if (this.enterPending) {
          this.enterPending = false;
          const first = this.found().shown[0];
          if (first && this.open) this.pick(first.agent_id);
        }
        if (this.open && this.active === -1 && text.trim()) this.active = 0;
      } catch {
        // Said in the list; typing again asks again.
        if (generation === this.searchGeneration) this.searchFailed = true;
      }
    }, 150);
  }

  /** The names of an agent this box knows (offered by the server or given in `agents`). */
  choiceOf(agentId: string): AgentChoice | undefined {
    return this.names.get(agentId);
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    clearTimeout(this.searchTimer);
  }

  private labelOf(agentId: string): string {
    return agentId ? agentLabel(agentId, this.names) : '';
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    // Show the current choice while the administrator is not typing.
    if ((changed.has('value') || changed.has('agents')) && !this.open) this.text = this.labelOf(this.value);
    // The agents can arrive while someone is already typing: highlight the first match then too.
    if (changed.has('agents') && this.open && this.active === -1 && this.text.trim()) this.active = 0;
  }

  /** What the box searches for: nothing while it shows the current choice. */
  private typed(): string {
    return this.text === this.labelOf(this.value) ? '' : this.text;
  }

  private found(): { shown: AgentChoice[]; total: number; loading: boolean } {
    const excluded = new Set(this.exclude);
    if (this.search) {
      // Matches for older text are never offered: Enter would pick from a list that is not this one's.
      if (this.remoteText !== this.typed()) return { shown: [], total: 0, loading: true };
      const answer = this.remote ?? { agents: [], total: 0 };
      const shown = answer.agents.filter((a) => !excluded.has(a.agent_id)).slice(0, MAX_SHOWN);
      const hidden = answer.agents.length - shown.length;
      return { shown, total: Math.max(shown.length, answer.total - hidden), loading: false };
    }
    const all = this.agents.filter((a) => !excluded.has(a.agent_id) && agentMatches(a, this.typed()));
    return { shown: all.slice(0, MAX_SHOWN), total: all.length, loading: false };
  }

  private pick(agentId: string): void {
    this.open = false;
    this.active = -1;
    this.text = this.clearOnPick ? '' : this.labelOf(agentId);
    if (agentId !== this.value || this.clearOnPick) {
      this.dispatchEvent(new CustomEvent('sb-change', { detail: agentId, bubbles: true, composed: true }));
    }
  }

  private onInput(event: Event): void {
    this.text = (event.target as HTMLInputElement).value;
    this.enterPending = false;
    this.requestMatches(this.typed());
    this.open = true;
    this.active = this.text.trim() ? 0 : -1;
    // Emptying the box is how a choice is cleared.
    if (this.text === '' && this.value && !this.clearOnPick) this.pick('');
  }

  private onKeyDown(event: KeyboardEvent): void {
    if (!this.open && (event.key === 'ArrowDown' || event.key === 'ArrowUp')) this.requestMatches(this.typed());
    const { shown } = this.found();
    switch (event.key) {
      case 'ArrowDown':
        event.preventDefault();
        if (!this.open) this.open = true;
        this.active = shown.length === 0 ? -1 : (this.active + 1) % shown.length;
        break;
      case 'ArrowUp':
        event.preventDefault();
        if (!this.open) this.open = true;
        this.active = shown.length === 0 ? -1 : (this.active - 1 + shown.length) % shown.length;
        break;
      case 'Enter': {
        if (this.open && this.search && this.found().loading) {
          event.preventDefault();
          this.enterPending = true;
          break;
        }
        const chosen = this.open ? shown[this.active] : undefined;
        if (chosen) {
          // Enter picks the option; it must not also submit a surrounding form.
          event.preventDefault();
          this.pick(chosen.agent_id);
        }
        break;
      }
      case 'Escape':
        if (this.open) {
          // Inside a dialog, the first Escape closes only the list.
          event.preventDefault();
          event.stopPropagation();
          this.open = false;
          this.active = -1;
        } else if (this.text !== this.labelOf(this.value)) {
          event.preventDefault();
          event.stopPropagation();
        }
        this.text = this.clearOnPick ? '' : this.labelOf(this.value);
        break;
    }
    if (this.open) void this.updateComplete.then(() => this.scrollActive());
  }

  private scrollActive(): void {
    this.renderRoot.querySelector(`#${this.uid}-opt-${this.active}`)?.scrollIntoView({ block: 'nearest' });
  }

  private onBlur(): void {
    this.open = false;
    this.active = -1;
    this.text = this.clearOnPick ? '' : this.labelOf(this.value);
  }

  override focus(): void {
    this.input?.focus();
  }

  override render() {
    const { shown, total, loading } = this.found();
    const expanded = this.open && !this.disabled;
    const activeId = expanded && this.active >= 0 ? `${this.uid}-opt-${this.active}` : '';
    const locale = currentLocale();
    return html`<label for=${this.uid}>${this.label}</label>
      <input
        id=${this.uid}
        type="text"
        role="combobox"
        autocomplete="off"
        spellcheck="false"
        aria-autocomplete="list"
        aria-expanded=${expanded ? 'true' : 'false'}
        aria-controls="${this.uid}-list"
        aria-activedescendant=${activeId}
        aria-describedby="${this.uid}-hint"
        placeholder=${this.placeholder}
        .value=${this.text}
        ?disabled=${this.disabled}
        @input=${this.onInput}
        @keydown=${this.onKeyDown}
        @click=${() => {
          this.open = true;
          this.requestMatches(this.typed());
        }}
        @blur=${this.onBlur}
      />
      <ul id="${this.uid}-list" role="listbox" aria-label=${this.label} ?hidden=${!expanded}>
        ${shown.map(
          (a, i) => html`<li
            id="${this.uid}-opt-${i}"
            role="option"
            aria-selected=${i === this.active ? 'true' : 'false'}
            data-agent-id=${a.agent_id}
            @mousedown=${(e: Event) => e.preventDefault()}
            @click=${() => this.pick(a.agent_id)}
          >
            ${agentLabel(a.agent_id, this.names)}
          </li>`,
        )}
        ${
          this.searchFailed
            ? html`<li class="more error" role="presentation">${msg('The agents could not be searched; type again to retry.')}</li>`
            : loading && shown.length === 0
              ? html`<li class="more muted" role="presentation">${msg('Searching…')}</li>`
              : total === 0
                ? html`<li class="more muted" role="presentation">${msg('No agent matches.')}</li>`
                : total > shown.length
                  ? html`<li class="more muted" role="presentation">
                  ${msg(str`${formatCount(shown.length, locale)} of ${formatCount(total, locale)} shown; type to narrow.`)}
                </li>`
                  : ''
        }
      </ul>
      <p class="hint" id="${this.uid}-hint">${this.hint}</p>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'sb-agent-combobox': SbAgentCombobox;
  }
}
