import { localized, msg, str } from '@lit/localize';
import { css, html, LitElement } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import { icons } from '../icons.js';
import type { AgentMatches } from '../lib/agent-directory.js';
import type { AgentChoice } from '../lib/agent-search.js';
import { agentLabel } from '../lib/channel-filters.js';
import { shared } from '../styles/shared.js';
import type { SbAgentCombobox } from './sb-agent-combobox.js';
import './sb-agent-combobox.js';

/**
 * A list of agents picked one by one (the participant-list filter, REQ-59): a searchable agent
 * combobox (picking is explicit, Enter or a click, so moving through the options applies nothing),
 * and the picked agents as removable chips. Fires `sb-change` with the new list of agent IDs.
 */
@localized()
@customElement('sb-agent-list-picker')
export class SbAgentListPicker extends LitElement {
  static override styles = [
    shared,
    css`
      ul.chips {
        list-style: none;
        margin: 0.4rem 0 0;
        padding: 0;
        display: flex;
        flex-wrap: wrap;
        gap: 0.35rem;
      }
      ul.chips li {
        display: inline-flex;
        align-items: center;
        gap: 0.2rem;
        border: 1px solid var(--sb-border-strong);
        border-radius: 999px;
        padding: 0 0.2rem 0 0.65rem;
        background: var(--sb-accent-soft);
      }
      ul.chips button {
        border: none;
        background: none;
        padding: 0.15rem;
        min-height: 2rem;
        min-width: 2rem;
        justify-content: center;
      }
    `,
  ];

  @property() label = '';
  @property() hint = '';
  /** The agents this page can name (with `search`: those known already; without: every agent). */
  @property({ attribute: false }) agents: readonly AgentChoice[] = [];
  /** The server's matches for typed text (sb-agent-combobox `search`). */
  @property({ attribute: false }) search: ((text: string) => Promise<AgentMatches>) | undefined;
  @property({ attribute: false }) selected: readonly string[] = [];
  /** The most agents that can be picked (a private channel has two participants). */
  @property({ type: Number }) max = Number.POSITIVE_INFINITY;

  /** Agents picked here from the server's matches: their names, before the page knows them. */
  private readonly picked = new Map<string, AgentChoice>();

  private get names() {
    const names = new Map(this.picked);
    for (const a of this.agents) names.set(a.agent_id, a);
    return names;
  }

  private emit(selected: string[]): void {
    this.dispatchEvent(new CustomEvent('sb-change', { detail: selected, bubbles: true, composed: true }));
  }

  private add(agentId: string): void {
    if (!agentId || this.selected.includes(agentId) || this.selected.length >= this.max) return;
    const choice = this.renderRoot.querySelector<SbAgentCombobox>('sb-agent-combobox')?.choiceOf(agentId);
    if (choice) this.picked.set(agentId, choice);
    this.emit([...this.selected, agentId]);
  }

  private removeAgent(agentId: string): void {
    this.emit(this.selected.filter((id) => id !== agentId));
    // The chip goes away; keep the keyboard user in the filter instead of losing focus.
    void this.updateComplete.then(() => this.renderRoot.querySelector<SbAgentCombobox>('sb-agent-combobox')?.focus());
  }

  override render() {
    const names = this.names;
    const full = this.selected.length >= this.max;
    return html`<sb-agent-combobox
        .label=${this.label}
        .hint=${full ? msg('The list is full; remove an agent to pick another.') : this.hint}
        .placeholder=${msg('Type to find an agent')}
        .agents=${this.agents}
        .search=${this.search}
        .exclude=${this.selected}
        clearOnPick
        ?disabled=${full}
        @sb-change=${(e: CustomEvent<string>) => {
          e.stopPropagation();
          this.add(e.detail);
        }}
      ></sb-agent-combobox>
      ${
        this.selected.length > 0
          ? html`<ul class="chips" aria-label=${this.label}>
              ${this.selected.map((id) => {
                const label = agentLabel(id, names);
                return html`<li>
                  <span>${label}</span>
                  <button type="button" aria-label=${msg(str`Remove ${label}`)} @click=${() => this.removeAgent(id)}>
                    ${icons.close}
                  </button>
                </li>`;
              })}
            </ul>`
          : ''
      }`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'sb-agent-list-picker': SbAgentListPicker;
  }
}
