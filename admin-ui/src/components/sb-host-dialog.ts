import { localized, msg, str } from '@lit/localize';
import { css, html, LitElement } from 'lit';
import { customElement, property, query, state } from 'lit/decorators.js';
import { live } from 'lit/directives/live.js';
import { ApiFailure, call, type Host } from '../api.js';
import { failureText } from '../failure-text.js';
import { sharedAddresses } from '../lib/shared-addresses.js';
import { shared } from '../styles/shared.js';
import type { SbDialog } from './sb-dialog.js';
import './sb-dialog.js';
import { FIELD_LIMITS } from '../../../core/lib/limits.js';

interface HostDraft {
  name: string;
  os: string;
  description: string;
}

/** Creates or edits a host: its name, its exact IP addresses (one per row), OS and description. */
@localized()
@customElement('sb-host-dialog')
export class SbHostDialog extends LitElement {
  static override styles = [
    shared,
    css`
      .address {
        display: flex;
        gap: 0.4rem;
        margin-bottom: 0.4rem;
      }
      fieldset {
        border: none;
        padding: 0;
        margin: 0 0 0.9rem;
      }
      .notice.warning {
        border-left-color: var(--sb-warning, #b7791f);
      }
      legend {
        font-weight: 600;
        margin-bottom: 0.25rem;
      }
    `,
  ];

  /** Every host, to warn when an address is already another host's. */
  @property({ attribute: false }) hosts: readonly Host[] = [];
  @state() private host: Host | null = null;
  /** The form's values, kept in state so re-rendering (adding an address row) never loses typing. */
  @state() private draft: HostDraft = { name: '', os: '', description: '' };
  @state() private addresses: string[] = [''];
  @state() private error = '';
  @state() private errorField = '';
  @state() private busy = false;
  @query('sb-dialog') private dialog!: SbDialog;

  async open(host: Host | null): Promise<void> {
    this.host = host;
    this.draft = { name: host?.name ?? '', os: host?.os ?? '', description: host?.description ?? '' };
    this.addresses = host ? [...host.addresses] : [''];
    this.error = '';
    this.errorField = '';
    await this.updateComplete;
    await this.dialog.show();
  }

  private setAddress(index: number, value: string): void {
    this.addresses = this.addresses.map((a, i) => (i === index ? value : a));
  }

  private async addAddress(): Promise<void> {
    this.addresses = [...this.addresses, ''];
    await this.updateComplete;
    this.renderRoot.querySelector<HTMLInputElement>(`#address-${this.addresses.length - 1}`)?.focus();
  }

  private async removeAddress(index: number): Promise<void> {
    this.addresses = this.addresses.filter((_, i) => i !== index);
    await this.updateComplete;
    this.renderRoot.querySelector<HTMLInputElement>(`#address-${Math.max(0, index - 1)}`)?.focus();
  }

  private async submit(event: SubmitEvent): Promise<void> {
    event.preventDefault();
    const addresses = this.addresses.map((a) => a.trim()).filter(Boolean);
    if (addresses.length === 0) {
      this.error = msg('Give at least one IP address.');
      this.errorField = 'addresses.0';
      return;
    }
    const body = {
      name: this.draft.name.trim(),
      addresses,
      os: this.draft.os.trim(),
      description: this.draft.description.trim(),
    };
    this.busy = true;
    this.error = '';
    this.errorField = '';
    try {
      const { host } = this.host
        ? await call('updateHost', { params: { host_id: this.host.host_id }, body })
        : await call('createHost', { body });
      this.dispatchEvent(new CustomEvent('sb-saved', { detail: host }));
      this.dialog.close();
    } catch (error) {
      this.error = failureText(error);
      this.errorField = error instanceof ApiFailure ? (error.field ?? '') : '';
    } finally {
      this.busy = false;
    }
  }

  private edit(field: keyof HostDraft) {
    return (event: Event) => {
      this.draft = { ...this.draft, [field]: (event.target as HTMLInputElement | HTMLTextAreaElement).value };
    };
  }

  private invalid(field: string): 'true' | 'false' {
    return this.errorField === field || (field === 'addresses.0' && this.errorField === 'addresses') ? 'true' : 'false';
  }

  override render() {
    const h = this.host;
    return html`<sb-dialog heading=${h ? msg('Edit host') : msg('Add host')}>
      <form @submit=${this.submit} novalidate>
        <div class="field">
          <label for="name">${msg('Name')}</label>
          <input id="name" name="name" required maxlength=${FIELD_LIMITS.host_name} .value=${live(this.draft.name)} @input=${this.edit('name')} aria-invalid=${this.invalid('name')} />
        </div>
        <fieldset>
          <legend>${msg('IP addresses')}</legend>
          <p class="hint" id="address-hint">${msg('Exact IPv4 or IPv6 addresses the host’s agents connect from; no ranges, no names.')}</p>
          ${this.addresses.map(
            (address, i) => html`<div class="address">
              <label class="visually-hidden" for="address-${i}">${msg(str`IP address ${i + 1}`)}</label>
              <input
                id="address-${i}"
                class="mono"
                inputmode="decimal"
                autocomplete="off"
                spellcheck="false"
                placeholder="192.168.1.20"
                aria-describedby="address-hint"
                aria-invalid=${this.invalid(`addresses.${i}`)}
                .value=${live(address)}
                @input=${(e: Event) => this.setAddress(i, (e.target as HTMLInputElement).value)}
              />
              ${
                this.addresses.length > 1
                  ? html`<button type="button" @click=${() => this.removeAddress(i)} aria-label=${msg(str`Remove address ${i + 1}`)}>
                      ${msg('Remove')}
                    </button>`
                  : ''
              }
            </div>`,
          )}
          <button type="button" @click=${this.addAddress}>${msg('Add address')}</button>
          <div role="status" aria-live="polite">
            ${sharedAddresses(this.addresses, this.hosts, h?.host_id ?? null).map(
              ({ address, host }) =>
                html`<p class="notice warning" data-testid="shared-address">
                  ${msg(
                    str`${address} is also an address of host ${host}: every agent of either host can connect from it. Save anyway only if both machines really share it (behind one NAT, for example).`,
                  )}
                </p>`,
            )}
          </div>
        </fieldset>
        <div class="field">
          <label for="os">${msg('Operating system')}</label>
          <input id="os" name="os" maxlength=${FIELD_LIMITS.host_os} .value=${live(this.draft.os)} @input=${this.edit('os')} placeholder="Ubuntu 24.04" />
        </div>
        <div class="field">
          <label for="description">${msg('Description')}</label>
          <textarea id="description" name="description" rows="3" maxlength=${FIELD_LIMITS.description} .value=${live(this.draft.description)} @input=${this.edit('description')}></textarea>
        </div>
        ${this.error ? html`<p class="notice error" role="alert">${this.error}</p>` : ''}
        <div class="actions">
          <button class="primary" type="submit" ?disabled=${this.busy}>${h ? msg('Save') : msg('Add host')}</button>
          <button type="button" @click=${() => this.dialog.close()}>${msg('Cancel')}</button>
        </div>
      </form>
    </sb-dialog>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'sb-host-dialog': SbHostDialog;
  }
}
