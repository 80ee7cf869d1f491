import { localized, msg, str } from '@lit/localize';
import { html, LitElement } from 'lit';
import { customElement, property, query, state } from 'lit/decorators.js';
import { type AdminGroup, call } from '../api.js';
import { failureText } from '../failure-text.js';
import { shared } from '../styles/shared.js';
import type { SbDialog } from './sb-dialog.js';
import './sb-dialog.js';
import './sb-agent-combobox.js';

/** Makes another active member the group's owner; the old owner stays an ordinary member. */
@localized()
@customElement('sb-owner-dialog')
export class SbOwnerDialog extends LitElement {
  static override styles = [shared];

  @property({ attribute: false }) agents: ReadonlyMap<string, { name: string; display_name: string }> = new Map();
  @state() private group: AdminGroup | null = null;
  @state() private choice = '';
  @state() private error = '';
  @state() private busy = false;
  @query('sb-dialog') private dialog!: SbDialog;

  async open(group: AdminGroup): Promise<void> {
    this.group = group;
    this.choice = '';
    this.error = '';
    await this.updateComplete;
    await this.dialog.show();
  }

  private candidates(): string[] {
    const g = this.group;
    if (!g) return [];
    return g.members.filter((m) => m.state === 'active' && m.agent_id !== g.owner_id).map((m) => m.agent_id);
  }

  /** The candidates as picker entries; a member the console has no record of shows by its ID. */
  private choices(candidates: string[]) {
    return candidates.map((id) => {
      const agent = this.agents.get(id);
      return { agent_id: id, name: agent?.name ?? id, display_name: agent?.display_name ?? id };
    });
  }

  private async submit(event: SubmitEvent): Promise<void> {
    event.preventDefault();
    const g = this.group;
    if (!g) return;
    if (!this.choice) {
      this.error = msg('Choose the new owner.');
      return;
    }
    this.busy = true;
    this.error = '';
    try {
      const { group } = await call('reassignGroupOwner', {
        params: { group_id: g.group_id },
        body: { agent_id: this.choice },
      });
      this.dispatchEvent(new CustomEvent('sb-saved', { detail: group }));
      this.dialog.close();
    } catch (error) {
      this.error = failureText(error);
    } finally {
      this.busy = false;
    }
  }

  override render() {
    const g = this.group;
    const candidates = this.candidates();
    return html`<sb-dialog heading=${msg('Change owner')}>
      <form @submit=${this.submit} novalidate>
        <p>${g ? msg(str`Group ${g.name}: the current owner stays a member.`) : ''}</p>
        ${
          candidates.length === 0
            ? html`<p class="notice">${msg('The group has no other active member to take over.')}</p>`
            : html`<div class="field">
                <sb-agent-combobox
                  .label=${msg('New owner')}
                  .placeholder=${msg('Type to find a member')}
                  .hint=${msg('Only an enabled, active member can become the owner.')}
                  .agents=${this.choices(candidates)}
                  .value=${this.choice}
                  @sb-change=${(e: CustomEvent<string>) => {
                    this.choice = e.detail;
                  }}
                ></sb-agent-combobox>
              </div>`
        }
        ${this.error ? html`<p class="notice error" role="alert">${this.error}</p>` : ''}
        <div class="actions">
          <button class="primary" type="submit" ?disabled=${this.busy || candidates.length === 0}>
            ${msg('Change owner')}
          </button>
          <button type="button" @click=${() => this.dialog.close()}>${msg('Cancel')}</button>
        </div>
      </form>
    </sb-dialog>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'sb-owner-dialog': SbOwnerDialog;
  }
}
