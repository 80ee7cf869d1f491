import { localized, msg, str } from '@lit/localize';
import { css, html, LitElement } from 'lit';
import { customElement, state } from 'lit/decorators.js';
import { live } from 'lit/directives/live.js';
import { type AuditEntry, call } from '../api.js';
import { AUDIT_ACTIONS, actionLabel } from '../lib/audit-actions.js';
import { AUDIT_EXPORT_MAX, auditCsv } from '../lib/audit-csv.js';
import {
  AUDIT_TARGET_MAX,
  type AuditFilter,
  auditFilterFromSearch,
  auditFilterToSearch,
  cleanAuditFilter,
  fromLocalInput,
  toLocalInput,
} from '../lib/audit-filters.js';
import { formatTime } from '../lib/format.js';
import { ListAddress } from '../lib/list-address.js';
import { pathFor } from '../lib/route.js';
import { type LoadFailure, renderFailure, renderLoading } from '../load-state.js';
import { currentLocale } from '../localization.js';
import { errorCodeText, fieldLabel } from '../server-text.js';
import { shared } from '../styles/shared.js';

const text = (value: FormDataEntryValue | null) => (typeof value === 'string' ? value : undefined);

/**
 * The audit log: what administrators did, to what (names beside IDs) and how (each changed
 * field's old and new value), when, from where and with what outcome, newest first, filtered by
 * administrator, action, target ID and time, a page at a time, and exported as CSV under the same
 * filters (docs/audit-log.md). The filters live in the address (lib/audit-filters.ts).
 */
@localized()
@customElement('sb-audit')
export class SbAudit extends LitElement {
  static override styles = [
    shared,
    css`
      form {
        display: flex;
        flex-wrap: wrap;
        gap: 0.75rem;
        align-items: end;
        margin-bottom: 1rem;
      }
      form .field {
        margin: 0;
      }
      .targets {
        overflow-wrap: anywhere;
      }
      .targets .id {
        font-size: 0.8rem;
      }
      ul.plain {
        list-style: none;
        margin: 0;
        padding: 0;
      }
      /* An address broken mid-way reads as two addresses. */
      td.address {
        white-space: nowrap;
      }
    `,
  ];

  @state() private entries: AuditEntry[] = [];
  @state() private admins: string[] = [];
  @state() private next: string | null = null;
  @state() private loaded = false;
  @state() private failure: LoadFailure | null = null;
  @state() private exporting = false;
  @state() private exported = '';
  @state() private filter: AuditFilter = auditFilterFromSearch(location.search);
  private readonly address = new ListAddress(this, pathFor('audit'), (search) => {
    this.filter = auditFilterFromSearch(search);
    this.exported = '';
    void this.load(false);
  });
  /** Answers to superseded requests (the filters changed meanwhile) are dropped. */
  private generation = 0;

  override connectedCallback(): void {
    super.connectedCallback();
    void this.load(false);
    call('listAdmins')
      .then((r) => {
        this.admins = r.admins.map((a) => a.username);
      })
      .catch(() => {
        // The filter still works by typing nothing; the page's own load reports failures.
      });
  }

  private async load(more: boolean): Promise<void> {
    const generation = ++this.generation;
    try {
      const page = await call('listAuditLog', {
        query: { ...this.filter, limit: 50, cursor: more ? (this.next ?? undefined) : undefined },
      });
      if (generation !== this.generation) return;
      this.entries = more ? [...this.entries, ...page.entries] : page.entries;
      this.next = page.next_cursor;
      this.failure = null;
      this.loaded = true;
    } catch (error) {
      if (generation === this.generation) this.failure = { error, retry: () => this.load(more) };
    }
  }

  private async apply(event: SubmitEvent): Promise<void> {
    event.preventDefault();
    const data = new FormData(event.target as HTMLFormElement);
    this.filter = cleanAuditFilter({
      admin: text(data.get('admin')),
      action: text(data.get('action')),
      target: text(data.get('target')),
      since: fromLocalInput(text(data.get('since')) ?? ''),
      until: fromLocalInput(text(data.get('until')) ?? ''),
    });
    this.address.write(auditFilterToSearch(this.filter));
    await this.load(false);
  }

  /** Every entry under the current filters (up to AUDIT_EXPORT_MAX), downloaded as one CSV file. */
  private async exportCsv(): Promise<void> {
    this.exporting = true;
    this.exported = '';
    try {
      const entries: AuditEntry[] = [];
      let cursor: string | undefined;
      do {
        const page = await call('listAuditLog', { query: { ...this.filter, limit: 200, cursor } });
        entries.push(...page.entries);
        cursor = page.next_cursor ?? undefined;
      } while (cursor && entries.length < AUDIT_EXPORT_MAX);
      const kept = entries.slice(0, AUDIT_EXPORT_MAX);
      const url = URL.createObjectURL(new Blob([auditCsv(kept)], { type: 'text/csv' }));
      const link = document.createElement('a');
      link.href = url;
      link.download = `switchboard-audit-${new Date().toISOString().slice(0, 10)}.csv`;
      link.click();
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
      const n = kept.length;
      this.exported =
        cursor && entries.length >= AUDIT_EXPORT_MAX
          ? msg(str`Exported the newest ${n} entries; narrow the filters for older ones.`)
          : msg(str`Entries exported: ${n}.`);
    } catch (error) {
      this.failure = { error, retry: () => this.exportCsv() };
    } finally {
      this.exporting = false;
    }
  }

  private targets(e: AuditEntry) {
    return html`<ul class="plain">
      ${e.targets.map((id) => {
        const name = e.names[id];
        return name === undefined
          ? html`<li class="mono">${id}</li>`
          : html`<li><span>${name}</span> <span class="mono muted id">${id}</span></li>`;
      })}
    </ul>`;
  }

  private changes(e: AuditEntry) {
    if (e.changes.length === 0) return '';
    return html`<ul class="plain">
      ${e.changes.map(
        (c) => html`<li>
          ${fieldLabel(c.field)}: <span class="mono">${c.old ?? ''}</span> → <span class="mono">${c.new ?? ''}</span>
        </li>`,
      )}
    </ul>`;
  }

  override render() {
    const locale = currentLocale();
    const f = this.filter;
    // An administrator deleted since still has entries: the filter from an address keeps them.
    const admins = f.admin && !this.admins.includes(f.admin) ? [...this.admins, f.admin] : this.admins;
    return html`<h1>${msg('Audit log')}</h1>
      <p class="muted">${msg('What administrators did, newest first. Entries are kept for 90 days (at most 100,000).')}</p>
      <form @submit=${this.apply} aria-label=${msg('Filter the audit log')}>
        <div class="field">
          <label for="admin">${msg('Administrator')}</label>
          <select id="admin" name="admin">
            <option value="" .selected=${live(!f.admin)}>${msg('All')}</option>
            ${admins.map((a) => html`<option value=${a} .selected=${live(f.admin === a)}>${a}</option>`)}
          </select>
        </div>
        <div class="field">
          <label for="action">${msg('Action')}</label>
          <select id="action" name="action">
            <option value="" .selected=${live(!f.action)}>${msg('All')}</option>
            ${AUDIT_ACTIONS.map((a) => html`<option value=${a} .selected=${live(f.action === a)}>${actionLabel(a)}</option>`)}
          </select>
        </div>
        <div class="field">
          <label for="target">${msg('Target ID')}</label>
          <input
            id="target"
            name="target"
            maxlength=${AUDIT_TARGET_MAX}
            autocomplete="off"
            .value=${live(f.target ?? '')}
          />
        </div>
        <div class="field">
          <label for="since">${msg('From')}</label>
          <input id="since" name="since" type="datetime-local" .value=${live(toLocalInput(f.since))} />
        </div>
        <div class="field">
          <label for="until">${msg('Until')}</label>
          <input id="until" name="until" type="datetime-local" .value=${live(toLocalInput(f.until))} />
        </div>
        <button class="primary" type="submit">${msg('Apply filters')}</button>
        <button type="button" data-testid="audit-export" ?disabled=${this.exporting} @click=${this.exportCsv}>
          ${msg('Export CSV')}
        </button>
      </form>
      <p role="status" aria-live="polite" class="muted">${this.exported}</p>
      ${this.failure ? renderFailure(msg('The audit log could not be loaded.'), this.failure.error, this.failure.retry) : ''}
      ${
        !this.loaded
          ? this.failure
            ? ''
            : renderLoading()
          : this.entries.length === 0
            ? html`<p class="muted">${msg('No entries match.')}</p>`
            : html`<table class="stack">
              <thead>
                <tr>
                  <th scope="col">${msg('Time')}</th>
                  <th scope="col">${msg('Administrator')}</th>
                  <th scope="col">${msg('Action')}</th>
                  <th scope="col">${msg('Targets')}</th>
                  <th scope="col">${msg('Changes')}</th>
                  <th scope="col">${msg('Address')}</th>
                  <th scope="col">${msg('Outcome')}</th>
                  <th scope="col">${msg('Request ID')}</th>
                </tr>
              </thead>
              <tbody>
                ${this.entries.map(
                  (e) => html`<tr data-action=${e.action} data-admin=${e.admin ?? ''}>
                    <td data-label=${msg('Time')}>${formatTime(e.at, locale)}</td>
                    <td data-label=${msg('Administrator')}>${e.admin ?? html`<span class="muted">${msg('unknown')}</span>`}</td>
                    <td data-label=${msg('Action')}>${actionLabel(e.action)}</td>
                    <td data-label=${msg('Targets')} class="targets">${this.targets(e)}</td>
                    <td data-label=${msg('Changes')} class="changes">${this.changes(e)}</td>
                    <td data-label=${msg('Address')} class="mono address">${e.client_address}</td>
                    <td data-label=${msg('Outcome')}>
                      ${
                        e.outcome === 'ok'
                          ? html`<span class="badge ok">${msg('Succeeded')}</span>`
                          : html`<span class="badge bad">${msg('Refused')}</span> <span data-code=${e.outcome}>${errorCodeText(e.outcome)}</span>`
                      }
                    </td>
                    <td data-label=${msg('Request ID')} class="mono">${e.request_id}</td>
                  </tr>`,
                )}
              </tbody>
            </table>`
      }
      ${this.next ? html`<button type="button" @click=${() => this.load(true)}>${msg('Show more')}</button>` : ''}`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'sb-audit': SbAudit;
  }
}
