import { localized, msg, str } from '@lit/localize';
import { Task } from '@lit/task';
import { html, LitElement } from 'lit';
import { customElement, query, state } from 'lit/decorators.js';
import { live } from 'lit/directives/live.js';
import { call, type Host, type HostWithCount, listAllHosts } from '../api.js';
import { failureText } from '../failure-text.js';
import {
  HOST_SEARCH_MAX,
  HOST_SORTS,
  type HostSort,
  type HostView,
  hostViewFromSearch,
  hostViewToSearch,
  showHosts,
} from '../lib/host-list.js';
import { ListAddress } from '../lib/list-address.js';
import { pathFor } from '../lib/route.js';
import { renderLoad } from '../load-state.js';
import { addressText, nameText } from '../render-names.js';
import { shared } from '../styles/shared.js';
import { toast } from '../toast.js';
import type { SbConfirm } from './sb-confirm.js';
import type { SbHostDialog } from './sb-host-dialog.js';
import './sb-confirm.js';
import './sb-host-dialog.js';

/**
 * Hosts: the machines agents run on, with the exact addresses they may connect from (REQ-04).
 * Searched and sorted here (the page holds every host), the search and sort in the address.
 */
@localized()
@customElement('sb-hosts')
export class SbHosts extends LitElement {
  static override styles = [shared];

  /** The hosts, each with its agent count from the server; re-run after every change. */
  private readonly task = new Task(this, { task: () => listAllHosts(), args: () => [] });
  /** An action's refusal; a failed load is the task's. */
  @state() private error = '';
  /** The search and sort, as the address says (lib/host-list.ts). */
  @state() private view: HostView = hostViewFromSearch(location.search);
  private readonly address = new ListAddress(this, pathFor('hosts'), (search) => {
    this.view = hostViewFromSearch(search);
  });
  @query('sb-host-dialog') private dialog!: SbHostDialog;
  @query('sb-confirm') private confirm!: SbConfirm;

  private async saved(event: CustomEvent<Host>): Promise<void> {
    toast(this, msg(str`Saved host ${event.detail.name}.`));
    await this.task.run();
  }

  private show(view: HostView, typed = false): void {
    this.view = view;
    this.address.write(hostViewToSearch(view), { typed });
  }

  private sortLabel(sort: HostSort): string {
    switch (sort) {
      case 'name:asc':
        return msg('Name (A to Z)');
      case 'name:desc':
        return msg('Name (Z to A)');
      case 'agents:desc':
        return msg('Most agents first');
      case 'agents:asc':
        return msg('Fewest agents first');
    }
  }

  private filters() {
    return html`<form class="filters" role="search" aria-label=${msg('Search and sort hosts')} @submit=${(e: Event) =>
      e.preventDefault()}>
      <div class="grow">
        <label for="host-search">${msg('Search hosts')}</label>
        <input
          id="host-search"
          type="search"
          maxlength=${HOST_SEARCH_MAX}
          .value=${live(this.view.q)}
          @input=${(e: Event) => this.show({ ...this.view, q: (e.target as HTMLInputElement).value }, true)}
          aria-describedby="host-search-hint"
        />
        <div class="hint" id="host-search-hint">${msg('Name, IP address, operating system or description.')}</div>
      </div>
      <div>
        <label for="host-sort">${msg('Sort by')}</label>
        <select
          id="host-sort"
          @change=${(e: Event) => this.show({ ...this.view, sort: (e.target as HTMLSelectElement).value as HostSort })}
        >
          ${HOST_SORTS.map((s) => html`<option value=${s} .selected=${live(this.view.sort === s)}>${this.sortLabel(s)}</option>`)}
        </select>
      </div>
    </form>`;
  }

  private async deleteHost(host: Host): Promise<void> {
    const ok = await this.confirm.ask({
      heading: msg('Delete host'),
      text: msg(str`Delete host ${host.name}? Only a host without agents can be deleted.`),
      confirmLabel: msg('Delete'),
      danger: true,
    });
    if (!ok) return;
    try {
      await call('deleteHost', { params: { host_id: host.host_id } });
      toast(this, msg(str`Deleted host ${host.name}.`));
      this.error = '';
      await this.task.run();
    } catch (error) {
      this.error = failureText(error);
    }
  }

  override render() {
    return html`<div class="toolbar">
        <h1>${msg('Hosts')}</h1>
        <button class="primary" type="button" @click=${() => this.dialog.open(null)}>${msg('Add host')}</button>
      </div>
      ${this.filters()}
      ${this.error ? html`<p class="notice error" role="alert">${this.error}</p>` : ''}
      ${renderLoad(
        this.task,
        () => msg('The hosts could not be loaded.'),
        (hosts) => this.table(hosts),
      )}
      <sb-host-dialog .hosts=${this.task.value ?? []} @sb-saved=${this.saved}></sb-host-dialog>
      <sb-confirm></sb-confirm>`;
  }

  private table(all: HostWithCount[]) {
    const hosts = showHosts(all, this.view);
    return all.length === 0
      ? html`<p class="muted">${msg('No hosts yet. Add the first machine your agents run on.')}</p>`
      : hosts.length === 0
        ? html`<p class="muted">${msg('No host matches the search.')}</p>`
        : html`<table class="stack">
              <thead>
                <tr>
                  <th scope="col">${msg('Name')}</th>
                  <th scope="col">${msg('IP addresses')}</th>
                  <th scope="col">${msg('Operating system')}</th>
                  <th scope="col">${msg('Description')}</th>
                  <th scope="col">${msg('Agents')}</th>
                  <th scope="col"><span class="visually-hidden">${msg('Actions')}</span></th>
                </tr>
              </thead>
              <tbody>
                ${hosts.map(
                  (host) => html`<tr data-host-id=${host.host_id}>
                    <td data-label=${msg('Name')}><strong>${nameText(host.name)}</strong></td>
                    <td data-label=${msg('IP addresses')} class="mono">${host.addresses.map((a) => html`<div>${addressText(a)}</div>`)}</td>
                    <td data-label=${msg('Operating system')}>${host.os}</td>
                    <td data-label=${msg('Description')}>${host.description}</td>
                    <td data-label=${msg('Agents')}>${host.agent_count}</td>
                    <td>
                      <div class="actions">
                        <button type="button" @click=${() => this.dialog.open(host)} aria-label=${msg(str`Edit host ${host.name}`)}>
                          ${msg('Edit')}
                        </button>
                        <button type="button" class="danger" @click=${() => this.deleteHost(host)} aria-label=${msg(str`Delete host ${host.name}`)}>
                          ${msg('Delete')}
                        </button>
                      </div>
                    </td>
                  </tr>`,
                )}
              </tbody>
            </table>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'sb-hosts': SbHosts;
  }
}
