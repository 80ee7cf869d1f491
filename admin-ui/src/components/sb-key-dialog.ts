import { localized, msg, str } from '@lit/localize';
import { css, html, LitElement } from 'lit';
import { customElement, query, state } from 'lit/decorators.js';
import { icons } from '../icons.js';
import type { CopyOutcome } from '../lib/clipboard.js';
import { copyFeedback, copyFromButton } from '../lib/copy-secret.js';
import { shared } from '../styles/shared.js';
import type { SbDialog } from './sb-dialog.js';
import './sb-dialog.js';

/**
 * The `switchboard login` command that stores this key in a profile named after the agent, for
 * this console's server. The key goes through stdin (printf is a shell builtin), so it never
 * appears in the process list; the CLI checks it with GET /me before saving.
 */
export function loginCommand(agentName: string, apiKey: string, serverUrl: string): string {
  return `printf '%s\\n' '${apiKey}' | switchboard login --profile ${agentName} --url ${serverUrl} --key-stdin`;
}

/**
 * Shows a newly issued API key, once (REQ-09, REQ-57), with a ready-to-paste login command. The
 * key is forgotten when the dialog closes; the copy buttons say whether the clipboard really took
 * it. Escape asks before closing, since the key cannot be shown again.
 */
@localized()
@customElement('sb-key-dialog')
export class SbKeyDialog extends LitElement {
  static override styles = [
    shared,
    css`
      [role='status'] {
        min-height: 1.5rem;
        margin: 0.5rem 0;
      }
      h3 {
        margin: 1rem 0 0.25rem;
        font-size: 1rem;
      }
      .ask {
        border: 1px solid var(--sb-danger);
        border-radius: 6px;
        padding: 0.6rem;
        margin-top: 0.75rem;
      }
    `,
  ];

  @state() private apiKey = '';
  @state() private agentName = '';
  @state() private outcome: CopyOutcome | null = null;
  @state() private copiedWhat: 'key' | 'command' = 'key';
  @state() private asking = false;
  @query('sb-dialog') private dialog!: SbDialog;

  async showKey(agentName: string, apiKey: string): Promise<void> {
    this.agentName = agentName;
    this.apiKey = apiKey;
    this.outcome = null;
    this.asking = false;
    await this.updateComplete;
    await this.dialog.show();
  }

  private command(): string {
    return loginCommand(this.agentName, this.apiKey, location.origin);
  }

  private async copy(what: 'key' | 'command', event: Event): Promise<void> {
    this.outcome = null;
    this.copiedWhat = what;
    this.outcome = await copyFromButton(what === 'key' ? this.apiKey : this.command(), event);
  }

  private forget(): void {
    this.apiKey = '';
    this.outcome = null;
    this.asking = false;
  }

  /** Escape: ask first, with the safe answer focused. */
  private async askToClose(): Promise<void> {
    this.asking = true;
    await this.updateComplete;
    this.renderRoot.querySelector<HTMLButtonElement>('[data-testid="keep-open"]')?.focus();
  }

  private async keepOpen(): Promise<void> {
    this.asking = false;
    await this.updateComplete;
    this.renderRoot.querySelector<HTMLButtonElement>('button.primary')?.focus();
  }

  private feedback() {
    const copied =
      this.copiedWhat === 'key' ? msg('Copied to the clipboard.') : msg('Command copied to the clipboard.');
    return copyFeedback(this.outcome, copied, msg('Select the key and copy it by hand.'));
  }

  override render() {
    return html`<sb-dialog heading=${msg('New API key')} guarded @sb-close=${this.forget} @sb-close-request=${this.askToClose}>
      <p>${msg(str`The API key for ${this.agentName}. It is shown only this once: store it now.`)}</p>
      <code class="secret mono token" data-testid="api-key">${this.apiKey}</code>
      <h3>${msg('Connect the agent')}</h3>
      <p class="hint">
        ${msg(str`On the agent's host, this saves the key in a switchboard profile named ${this.agentName} and checks it with the server:`)}
      </p>
      <code class="secret mono token" data-testid="login-command">${this.apiKey ? this.command() : ''}</code>
      <div class="actions">
        <button type="button" class="primary" autofocus @click=${(e: Event) => this.copy('key', e)}>
          ${icons.copy} ${msg('Copy key')}
        </button>
        <button type="button" @click=${(e: Event) => this.copy('command', e)}>${icons.copy} ${msg('Copy command')}</button>
        <button type="button" @click=${() => this.dialog.close()}>${msg('Done')}</button>
      </div>
      <div role="status" aria-live="polite">${this.feedback()}</div>
      ${
        this.asking
          ? html`<div class="ask" role="alertdialog" aria-labelledby="ask-text">
              <p id="ask-text">${msg('Close without storing the key? It cannot be shown again; you would have to issue a new one.')}</p>
              <div class="actions">
                <button type="button" data-testid="keep-open" @click=${this.keepOpen}>${msg('Keep open')}</button>
                <button type="button" class="danger" data-testid="close-anyway" @click=${() => this.dialog.close()}>
                  ${msg('Close anyway')}
                </button>
              </div>
            </div>`
          : ''
      }
    </sb-dialog>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'sb-key-dialog': SbKeyDialog;
  }
}
