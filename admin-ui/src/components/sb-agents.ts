import { localized, msg, str } from '@lit/localize';
import { html, LitElement } from 'lit';
import { customElement, query, state } from 'lit/decorators.js';
import { type Agent, call, type Host, listAllAgents, listAllHosts } from '../api.js';
import { failureText } from '../failure-text.js';
import { formatTime } from '../lib/format.js';
import { currentLocale } from '../localization.js';
import { shared } from '../styles/shared.js';
import { toast } from '../toast.js';
import type { KeyIssued, SbAgentDialog } from './sb-agent-dialog.js';
import type { SbConfirm } from './sb-confirm.js';
import type { SbKeyDialog } from './sb-key-dialog.js';
import './sb-agent-dialog.js';
import './sb-confirm.js';
import './sb-key-dialog.js';

/** Agent accounts: create, edit, disable or enable, regenerate and revoke keys (REQ-03, REQ-09). */
@localized()
@customElement('sb-agents')
export class SbAgents extends LitElement {
  static override styles = [shared];

  @state() private hosts: Host[] = [];
  @state() private agents: Agent[] = [];
  @state() private hostFilter = '';
  @state() private loaded = false;
  @state() private error = '';
  @query('sb-agent-dialog') private dialog!: SbAgentDialog;
  @query('sb-key-dialog') private keyDialog!: SbKeyDialog;
  @query('sb-confirm') private confirm!: SbConfirm;

  override connectedCallback(): void {
    super.connectedCallback();
    void this.load();
  }

  private async load(): Promise<void> {
    try {
      [this.hosts, this.agents] = await Promise.all([listAllHosts(), listAllAgents()]);
      this.error = '';
    } catch (error) {
      this.error = failureText(error);
    } finally {
      this.loaded = true;
    }
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
    const ok = await this.confirm.ask({
      heading: msg('Issue a new key'),
      text: msg(str`Issue a new API key for ${agent.name}? The current key stops working at once.`),
      confirmLabel: msg('Issue new key'),
      danger: true,
    });
    if (!ok) return;
    try {
      const { api_key } = await call('regenerateAgentKey', { params: { agent_id: agent.agent_id } });
      toast(this, msg(str`Issued a new key for ${agent.name}.`));
      this.error = '';
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

  private row(agent: Agent) {
    const locale = currentLocale();
    return html`<tr data-agent-id=${agent.agent_id}>
      <td data-label=${msg('Name')}><strong class="mono">${agent.name}</strong></td>
      <td data-label=${msg('Display name')}>${agent.display_name}</td>
      <td data-label=${msg('Host')}>${this.hostName(agent.host_id)}</td>
      <td data-label=${msg('Status')}>
        ${agent.enabled ? html`<span class="badge ok">${msg('Enabled')}</span>` : html`<span class="badge off">${msg('Disabled')}</span>`}
      </td>
      <td data-label=${msg('Last access')}>${agent.last_access_at ? formatTime(agent.last_access_at, locale) : msg('Never')}</td>
      <td>
        <div class="actions">
          <button type="button" @click=${() => this.dialog.open(agent)} aria-label=${msg(str`Edit agent ${agent.name}`)}>
            ${msg('Edit')}
          </button>
          ${
            agent.enabled
              ? html`<button type="button" @click=${() => this.setEnabled(agent, false)} aria-label=${msg(str`Disable agent ${agent.name}`)}>
                  ${msg('Disable')}
                </button>`
              : html`<button type="button" @click=${() => this.setEnabled(agent, true)} aria-label=${msg(str`Enable agent ${agent.name}`)}>
                  ${msg('Enable')}
                </button>`
          }
          <button type="button" @click=${() => this.regenerate(agent)} aria-label=${msg(str`Issue a new key for ${agent.name}`)}>
            ${msg('New key')}
          </button>
          <button type="button" class="danger" @click=${() => this.revoke(agent)} aria-label=${msg(str`Revoke the key of ${agent.name}`)}>
            ${msg('Revoke key')}
          </button>
          <button type="button" class="danger" @click=${() => this.deleteAgent(agent)} aria-label=${msg(str`Delete agent ${agent.name}`)}>
            ${msg('Delete')}
          </button>
        </div>
      </td>
    </tr>`;
  }

  override render() {
    const shown = this.hostFilter ? this.agents.filter((a) => a.host_id === this.hostFilter) : this.agents;
    return html`<div class="toolbar">
        <h1>${msg('Agents')}</h1>
        <div class="actions">
          <div>
            <label for="host-filter">${msg('Host')}</label>
            <select id="host-filter" @change=${(e: Event) => (this.hostFilter = (e.target as HTMLSelectElement).value)}>
              <option value="">${msg('All hosts')}</option>
              ${this.hosts.map((h) => html`<option value=${h.host_id} .selected=${this.hostFilter === h.host_id}>${h.name}</option>`)}
            </select>
          </div>
          <button class="primary" type="button" ?disabled=${this.hosts.length === 0} @click=${() => this.dialog.open(null)}>
            ${msg('Add agent')}
          </button>
        </div>
      </div>
      ${this.error ? html`<p class="notice error" role="alert">${this.error}</p>` : ''}
      ${this.loaded && this.hosts.length === 0 ? html`<p class="muted">${msg('Add a host first: every agent belongs to one.')}</p>` : ''}
      ${
        this.loaded && shown.length === 0
          ? html`<p class="muted">${msg('No agents to show.')}</p>`
          : html`<table class="stack">
              <thead>
                <tr>
                  <th scope="col">${msg('Name')}</th>
                  <th scope="col">${msg('Display name')}</th>
                  <th scope="col">${msg('Host')}</th>
                  <th scope="col">${msg('Status')}</th>
                  <th scope="col">${msg('Last access')}</th>
                  <th scope="col"><span class="visually-hidden">${msg('Actions')}</span></th>
                </tr>
              </thead>
              <tbody>
                ${shown.map((a) => this.row(a))}
              </tbody>
            </table>`
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
