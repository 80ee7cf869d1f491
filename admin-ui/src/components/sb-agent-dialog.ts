import { localized, msg } from '@lit/localize';
import { html, LitElement } from 'lit';
import { customElement, property, query, state } from 'lit/decorators.js';
import { live } from 'lit/directives/live.js';
import { type Agent, ApiFailure, call, type Host } from '../api.js';
import { failureText } from '../failure-text.js';
import { shared } from '../styles/shared.js';
import type { SbDialog } from './sb-dialog.js';
import './sb-dialog.js';
import { FIELD_LIMITS } from '../../../core/lib/limits.js';

export interface KeyIssued {
  agent: Agent;
  apiKey: string;
}

interface AgentDraft {
  name: string;
  display_name: string;
  description: string;
  host_id: string;
  enabled: boolean;
}

/**
 * Creates or edits an agent account: name, display name, description (what it does, shown to other
 * agents in the directory), host, enabled. There is deliberately no
 * language selector (REQ-60): agents are not people, and the console's own language applies.
 */
@localized()
@customElement('sb-agent-dialog')
export class SbAgentDialog extends LitElement {
  static override styles = [shared];

  @property({ attribute: false }) hosts: Host[] = [];
  @state() private agent: Agent | null = null;
  /** The form's values, kept in state so a re-render never loses what was typed. */
  @state() private draft: AgentDraft = { name: '', display_name: '', description: '', host_id: '', enabled: true };
  @state() private error = '';
  @state() private errorField = '';
  @state() private busy = false;
  @query('sb-dialog') private dialog!: SbDialog;

  async open(agent: Agent | null): Promise<void> {
    this.agent = agent;
    this.draft = {
      name: agent?.name ?? '',
      display_name: agent?.display_name ?? '',
      description: agent?.description ?? '',
      host_id: agent?.host_id ?? '',
      enabled: agent?.enabled ?? true,
    };
    this.error = '';
    this.errorField = '';
    await this.updateComplete;
    await this.dialog.show();
  }

  private async submit(event: SubmitEvent): Promise<void> {
    event.preventDefault();
    const name = this.draft.name.trim();
    const displayName = this.draft.display_name.trim();
    // Always sent, so clearing the field clears the description.
    const description = this.draft.description.trim();
    const hostId = this.draft.host_id;
    const enabled = this.draft.enabled;
    if (!hostId) {
      this.error = msg('Choose the host this agent runs on.');
      this.errorField = 'host_id';
      return;
    }
    this.busy = true;
    this.error = '';
    this.errorField = '';
    try {
      if (this.agent) {
        const { agent } = await call('updateAgent', {
          params: { agent_id: this.agent.agent_id },
          body: { name, host_id: hostId, enabled, description, ...(displayName ? { display_name: displayName } : {}) },
        });
        this.dispatchEvent(new CustomEvent<Agent>('sb-saved', { detail: agent }));
      } else {
        const created = await call('createAgent', {
          body: { name, host_id: hostId, enabled, description, ...(displayName ? { display_name: displayName } : {}) },
        });
        this.dispatchEvent(
          new CustomEvent<KeyIssued>('sb-key-issued', { detail: { agent: created.agent, apiKey: created.api_key } }),
        );
      }
      this.dialog.close();
    } catch (error) {
      this.error = failureText(error);
      this.errorField = error instanceof ApiFailure ? (error.field ?? '') : '';
    } finally {
      this.busy = false;
    }
  }

  private edit(field: 'name' | 'display_name' | 'description' | 'host_id') {
    return (event: Event) => {
      this.draft = {
        ...this.draft,
        [field]: (event.target as HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement).value,
      };
    };
  }

  override render() {
    const a = this.agent;
    const d = this.draft;
    const invalid = (field: string) => (this.errorField === field ? 'true' : 'false');
    return html`<sb-dialog heading=${a ? msg('Edit agent') : msg('Add agent')}>
      <form @submit=${this.submit} novalidate>
        <div class="field">
          <label for="name">${msg('Name')}</label>
          <input
            id="name"
            name="name"
            required
            maxlength=${FIELD_LIMITS.agent_name}
            autocomplete="off"
            spellcheck="false"
            aria-describedby="name-hint"
            aria-invalid=${invalid('name')}
            .value=${live(d.name)}
            @input=${this.edit('name')}
          />
          <div class="hint" id="name-hint">
            ${msg('Unique on its host. Letters, digits, dot, dash and underscore; starts with a letter or digit.')}
          </div>
        </div>
        <div class="field">
          <label for="display_name">${msg('Display name')}</label>
          <input
            id="display_name"
            name="display_name"
            maxlength=${FIELD_LIMITS.display_name}
            aria-describedby="display-hint"
            aria-invalid=${invalid('display_name')}
            .value=${live(d.display_name)}
            @input=${this.edit('display_name')}
          />
          <div class="hint" id="display-hint">${msg('Optional; the name is used when empty.')}</div>
        </div>
        <div class="field">
          <label for="description">${msg('Description')}</label>
          <textarea
            id="description"
            name="description"
            rows="3"
            maxlength=${FIELD_LIMITS.description}
            aria-describedby="description-hint"
            aria-invalid=${invalid('description')}
            .value=${live(d.description)}
            @input=${this.edit('description')}
          ></textarea>
          <div class="hint" id="description-hint">
            ${msg('Optional: what this agent does. Other agents see it in the directory.')}
          </div>
        </div>
        <div class="field">
          <label for="host_id">${msg('Host')}</label>
          <select id="host_id" name="host_id" required aria-invalid=${invalid('host_id')} @change=${this.edit('host_id')}>
            <option value="" .selected=${d.host_id === ''}>${msg('Choose a host')}</option>
            ${this.hosts.map(
              (h) => html`<option value=${h.host_id} .selected=${d.host_id === h.host_id}>${h.name}</option>`,
            )}
          </select>
        </div>
        <div class="field">
          <label><input
              type="checkbox"
              name="enabled"
              .checked=${live(d.enabled)}
              @change=${(e: Event) => {
                this.draft = { ...this.draft, enabled: (e.target as HTMLInputElement).checked };
              }}
            /> ${msg('Enabled')}</label>
          <div class="hint">${msg('A disabled agent cannot authenticate; its key is kept.')}</div>
        </div>
        ${this.error ? html`<p class="notice error" role="alert">${this.error}</p>` : ''}
        <div class="actions">
          <button class="primary" type="submit" ?disabled=${this.busy}>${a ? msg('Save') : msg('Add agent')}</button>
          <button type="button" @click=${() => this.dialog.close()}>${msg('Cancel')}</button>
        </div>
      </form>
    </sb-dialog>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'sb-agent-dialog': SbAgentDialog;
  }
}
