import { localized, msg, str } from '@lit/localize';
import { css, html, LitElement } from 'lit';
import { customElement, property, query, state } from 'lit/decorators.js';
import { BULK_AGENTS_MAX, keysCsv, readImportFile } from '../../../core/lib/agent-import.js';
import { type Agent, ApiFailure, type BodyOf, call, type ImportRowRefusal, type ResponseOf } from '../api.js';
import { failureText } from '../failure-text.js';
import { formatCount } from '../lib/format.js';
import { currentLocale } from '../localization.js';
import { errorCodeText, rowRefusalText } from '../server-text.js';
import { shared } from '../styles/shared.js';
import { toast } from '../toast.js';
import type { SbConfirm } from './sb-confirm.js';
import type { SbDialog } from './sb-dialog.js';
import './sb-confirm.js';
import './sb-dialog.js';

type Action = BodyOf<'bulkAgents'>['action'];
type BulkResult = ResponseOf<'bulkAgents'>['results'][number];

/** One line of the report: an agent (or row) and what happened to it. */
interface ReportLine {
  name: string;
  ok: boolean;
  text: string;
}

/**
 * The agent list's bulk actions and import (POST /admin/agents/bulk, /admin/agents/import): the
 * toolbar for the checked agents, a confirmation that names the count, then a report of what
 * happened to each agent; new keys (a bulk key regeneration, an import) are offered once as a
 * CSV download. An import is all or nothing, and the dialog says so before the file is sent.
 */
@localized()
@customElement('sb-agent-bulk')
export class SbAgentBulk extends LitElement {
  static override styles = [
    shared,
    css`
      .bulk {
        display: flex;
        flex-wrap: wrap;
        gap: 0.5rem;
        align-items: center;
        margin-bottom: 0.75rem;
      }
      .bulk select {
        width: auto;
        max-width: 100%;
      }
      ul.report {
        max-height: 16rem;
        overflow-y: auto;
        padding-inline-start: 1.2rem;
        overflow-wrap: anywhere;
      }
      ul.report .failed {
        color: var(--sb-danger, #b00020);
      }
    `,
  ];

  /** The checked agents (of the page shown). */
  @property({ attribute: false }) selected: Agent[] = [];
  @state() private action: Action = 'disable';
  @state() private busy = false;
  @state() private heading = '';
  @state() private summary = '';
  @state() private report: ReportLine[] = [];
  @state() private keysUrl = '';
  @state() private importProblems: string[] = [];
  @query('sb-confirm') private confirm!: SbConfirm;
  @query('#report') private reportDialog!: SbDialog;
  @query('#import') private importDialog!: SbDialog;
  @query('#bulk-action') private actionSelect!: HTMLSelectElement;

  private actionLabel(action: Action): string {
    switch (action) {
      case 'disable':
        return msg('Disable');
      case 'enable':
        return msg('Enable');
      case 'regenerate_key':
        return msg('Issue new keys');
      case 'revoke_key':
        return msg('Revoke keys');
      case 'delete':
        return msg('Delete');
    }
  }

  /** The question for one agent names it (never "1 agents"); for more, it names the count. */
  private question(action: Action, agents: readonly Agent[]): string {
    const [only] = agents;
    if (agents.length === 1 && only) return this.questionForOne(action, only);
    const n = formatCount(agents.length, currentLocale());
    switch (action) {
      case 'disable':
        return msg(str`Disable ${n} agents? They cannot authenticate until enabled again.`);
      case 'enable':
        return msg(str`Enable ${n} agents?`);
      case 'regenerate_key':
        return msg(str`Issue new API keys for ${n} agents? Their current keys stop working at once.`);
      case 'revoke_key':
        return msg(str`Revoke the API keys of ${n} agents? They cannot authenticate until new keys are issued.`);
      case 'delete':
        return msg(
          str`Delete ${n} agents for good? Their keys stop working at once and messages waiting for them are dropped.`,
        );
    }
  }

  private questionForOne(action: Action, agent: Agent): string {
    switch (action) {
      case 'disable':
        return msg(str`Disable ${agent.name}? It cannot authenticate until enabled again.`);
      case 'enable':
        return msg(str`Enable ${agent.name}?`);
      case 'regenerate_key':
        return msg(str`Issue a new API key for ${agent.name}? The current key stops working at once.`);
      case 'revoke_key':
        return msg(str`Revoke the API key of ${agent.name}? The agent cannot authenticate until you issue a new key.`);
      case 'delete':
        return msg(
          str`Delete ${agent.name} for good? Its key stops working at once, it leaves the directory and its groups, and messages waiting for it are dropped. Messages it sent stay in the other participants' history.`,
        );
    }
  }

  private done(): void {
    this.dispatchEvent(new CustomEvent('sb-bulk-done', { bubbles: true, composed: true }));
  }

  private offerKeys(keys: { agent_id: string; name: string; api_key: string }[]): void {
    if (this.keysUrl) URL.revokeObjectURL(this.keysUrl);
    this.keysUrl = keys.length > 0 ? URL.createObjectURL(new Blob([keysCsv(keys)], { type: 'text/csv' })) : '';
  }

  /**
   * The keys leave memory once the report closes: they are shown this once. The focus goes back to
   * the toolbar when what opened the report cannot take it back (Apply, disabled once the picks
   * clear), rather than to nowhere.
   */
  private forgetKeys(): void {
    if (this.keysUrl) URL.revokeObjectURL(this.keysUrl);
    this.keysUrl = '';
    this.report = [];
    let active: Element | null = document.activeElement;
    while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
    // Still in the closed report, on nothing, or on a disabled button: none of them can keep it.
    const lost = !active || active === document.body || active.matches(':disabled') || !active.checkVisibility();
    if (lost) this.actionSelect?.focus();
  }

  private async apply(): Promise<void> {
    const agents = this.selected.slice(0, BULK_AGENTS_MAX);
    if (agents.length === 0) return;
    const n = formatCount(agents.length, currentLocale());
    const ok = await this.confirm.ask({
      heading: this.actionLabel(this.action),
      text: this.question(this.action, agents),
      confirmLabel: `${this.actionLabel(this.action)} (${n})`,
      danger: this.action !== 'enable',
    });
    if (!ok) return;
    this.busy = true;
    try {
      const { results } = await call('bulkAgents', {
        body: { action: this.action, agent_ids: agents.map((a) => a.agent_id) },
      });
      const nameOf = (id: string) => agents.find((a) => a.agent_id === id)?.name ?? id;
      this.report = results.map((r) => this.line(nameOf(r.agent_id), r));
      const failed = results.filter((r) => r.status === 'rejected').length;
      const total = formatCount(results.length, currentLocale());
      this.heading = this.actionLabel(this.action);
      const [only] = results;
      this.summary =
        results.length === 1 && only
          ? failed === 0
            ? msg(str`Done for ${nameOf(only.agent_id)}.`)
            : msg(str`Nothing changed for ${nameOf(only.agent_id)}.`)
          : failed === 0
            ? msg(str`Done for all ${total} agents.`)
            : msg(
                str`Done for ${formatCount(results.length - failed, currentLocale())} of ${total} agents; the others are unchanged.`,
              );
      this.offerKeys(
        results.flatMap((r) =>
          r.api_key ? [{ agent_id: r.agent_id, name: nameOf(r.agent_id), api_key: r.api_key }] : [],
        ),
      );
      toast(this, this.summary);
      this.done();
      await this.updateComplete;
      await this.reportDialog.show();
    } catch (error) {
      toast(this, failureText(error));
    } finally {
      this.busy = false;
    }
  }

  private line(name: string, r: BulkResult): ReportLine {
    if (r.status === 'rejected') {
      const text = r.error?.reason
        ? rowRefusalText({ row: 0, code: r.error.code, reason: r.error.reason, message: r.error.message })
        : errorCodeText(r.error?.code ?? 'internal_error');
      return { name, ok: false, text };
    }
    return {
      name,
      ok: true,
      text: r.status === 'done' ? msg('Done.') : msg('Saved; it takes effect as soon as the server has passed it on.'),
    };
  }

  private async openImport(): Promise<void> {
    this.importProblems = [];
    await this.updateComplete;
    await this.importDialog.show();
  }

  private async importFile(event: SubmitEvent): Promise<void> {
    event.preventDefault();
    const input = this.renderRoot.querySelector<HTMLInputElement>('#import-file');
    const file = input?.files?.[0];
    if (!file) {
      this.importProblems = [msg('Choose a CSV or JSON file.')];
      return;
    }
    const { rows, problems } = readImportFile(await file.text(), file.name);
    if (problems.length > 0) {
      this.importProblems = problems.map((p) => msg(str`Row ${formatCount(p.row, currentLocale())}: ${p.message}`));
      return;
    }
    this.busy = true;
    try {
      const { agents } = await call('importAgents', { body: { agents: rows } });
      this.importDialog.close();
      this.heading = msg('Import agents');
      const [only] = agents;
      this.summary =
        agents.length === 1 && only
          ? msg(str`Created agent ${only.agent.name}.`)
          : msg(str`Created ${formatCount(agents.length, currentLocale())} agents.`);
      this.report = agents.map((a) => ({ name: a.agent.name, ok: true, text: msg('Created.') }));
      this.offerKeys(agents.map((a) => ({ agent_id: a.agent.agent_id, name: a.agent.name, api_key: a.api_key })));
      toast(this, this.summary);
      this.done();
      await this.updateComplete;
      await this.reportDialog.show();
    } catch (error) {
      const refused: ImportRowRefusal[] = error instanceof ApiFailure ? (error.rows ?? []) : [];
      this.importProblems =
        refused.length > 0
          ? [
              failureText(error),
              ...refused.map((r) => msg(str`Row ${formatCount(r.row, currentLocale())}: ${rowRefusalText(r)}`)),
            ]
          : [failureText(error)];
    } finally {
      this.busy = false;
    }
  }

  override render() {
    const n = this.selected.length;
    const actions: Action[] = ['disable', 'enable', 'regenerate_key', 'revoke_key', 'delete'];
    return html`<div class="bulk" role="group" aria-label=${msg('Bulk actions')}>
        <span aria-live="polite">${msg(str`${formatCount(n, currentLocale())} selected`)}</span>
        <label class="visually-hidden" for="bulk-action">${msg('Action for the selected agents')}</label>
        <select
          id="bulk-action"
          @change=${(e: Event) => {
            this.action = (e.target as HTMLSelectElement).value as Action;
          }}
        >
          ${actions.map((a) => html`<option value=${a} .selected=${this.action === a}>${this.actionLabel(a)}</option>`)}
        </select>
        <button
          type="button"
          data-testid="bulk-apply"
          ?disabled=${n === 0 || n > BULK_AGENTS_MAX || this.busy}
          @click=${this.apply}
        >
          ${msg('Apply to selected')}
        </button>
        ${n > BULK_AGENTS_MAX ? html`<span class="error">${msg(str`At most ${formatCount(BULK_AGENTS_MAX, currentLocale())} agents at a time.`)}</span>` : ''}
        <button type="button" data-testid="import-open" @click=${this.openImport}>${msg('Import agents')}</button>
      </div>
      <sb-dialog id="import" heading=${msg('Import agents')}>
        <form @submit=${this.importFile}>
          <p>
            ${msg('A CSV file with the header name,host,display_name,description, or a JSON list of the same fields. host is a host name or ID.')}
          </p>
          <p class="notice">
            ${msg('All or nothing: if any row is refused, no agent is created, and every refused row is listed here.')}
          </p>
          <label for="import-file">${msg('File')}</label>
          <input id="import-file" type="file" accept=".csv,.json,text/csv,application/json" />
          ${
            this.importProblems.length > 0
              ? html`<ul class="report failed" role="alert" data-testid="import-problems">
                  ${this.importProblems.map((p) => html`<li class="failed">${p}</li>`)}
                </ul>`
              : ''
          }
          <div class="actions">
            <button type="button" @click=${() => this.importDialog.close()}>${msg('Cancel')}</button>
            <button type="submit" class="primary" ?disabled=${this.busy}>${msg('Import')}</button>
          </div>
        </form>
      </sb-dialog>
      <sb-dialog id="report" heading=${this.heading} @sb-close=${this.forgetKeys}>
        <p data-testid="bulk-summary">${this.summary}</p>
        ${
          this.keysUrl
            ? html`<p class="notice">${msg('The new keys are shown only this once: download them now.')}</p>
                <p>
                  <a class="button primary" data-testid="keys-download" href=${this.keysUrl} download="switchboard-keys.csv"
                    >${msg('Download the keys (CSV)')}</a
                  >
                </p>`
            : ''
        }
        <ul class="report" data-testid="bulk-report">
          ${this.report.map(
            (l) => html`<li class=${l.ok ? '' : 'failed'}><strong class="mono">${l.name}</strong>: ${l.text}</li>`,
          )}
        </ul>
        <div class="actions">
          <button type="button" @click=${() => this.reportDialog.close()}>${msg('Done')}</button>
        </div>
      </sb-dialog>
      <sb-confirm></sb-confirm>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'sb-agent-bulk': SbAgentBulk;
  }
}
