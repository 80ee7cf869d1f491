import { localized, msg, str } from '@lit/localize';
import { css, html, LitElement, type PropertyValues } from 'lit';
import { customElement, property, query, state } from 'lit/decorators.js';
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
 * costs no more than a short list. Fires `sb-change` with the agent ID, or '' when cleared.
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
  /** The chosen agent ID ('' for none). */
  @property() value = '';
  /** Keep the box empty after a pick (adding to a list rather than choosing one value). */
  @property({ type: Boolean }) clearOnPick = false;
  @property({ type: Boolean }) disabled = false;
  @state() private text = '';
  @state() private open = false;
  @state() private active = -1;
  @query('input') private input!: HTMLInputElement;
  private readonly uid = `combo-${nextId++}`;

  private get names(): ReadonlyMap<string, AgentChoice> {
    return new Map(this.agents.map((a) => [a.agent_id, a]));
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

  private found(): { shown: AgentChoice[]; total: number } {
    const typed = this.text === this.labelOf(this.value) ? '' : this.text;
    const all = this.agents.filter((a) => agentMatches(a, typed));
    return { shown: all.slice(0, MAX_SHOWN), total: all.length };
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
    this.open = true;
    this.active = this.text.trim() ? 0 : -1;
    // Emptying the box is how a choice is cleared.
    if (this.text === '' && this.value && !this.clearOnPick) this.pick('');
  }

  private onKeyDown(event: KeyboardEvent): void {
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
    const { shown, total } = this.found();
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
        @click=${() => (this.open = true)}
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
          total === 0
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
