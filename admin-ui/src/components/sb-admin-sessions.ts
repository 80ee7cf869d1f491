import { localized, msg, str } from '@lit/localize';
import { Task } from '@lit/task';
import { css, html, LitElement } from 'lit';
import { customElement, query, state } from 'lit/decorators.js';
import { type AdminSessionInfo, call, SESSION_ENDED_EVENT } from '../api.js';
import { failureText } from '../failure-text.js';
import { formatTime } from '../lib/format.js';
import { renderLoad } from '../load-state.js';
import { currentLocale } from '../localization.js';
import { shared } from '../styles/shared.js';
import { toast } from '../toast.js';
import type { SbConfirm } from './sb-confirm.js';
import './sb-confirm.js';

/**
 * Live administrator sessions: who, since when, last seen, from which address and browser (never
 * the session's secret), each of which can be ended. Ending your own signs you out.
 */
@localized()
@customElement('sb-admin-sessions')
export class SbAdminSessions extends LitElement {
  static override styles = [
    shared,
    css`
      /* An address broken mid-way reads as two addresses. */
      td.address {
        white-space: nowrap;
      }
    `,
  ];

  private readonly task = new Task(this, {
    task: async () => (await call('listAdminSessions')).sessions,
    args: () => [],
  });
  /** An action's refusal; a failed load is the task's. */
  @state() private error = '';
  @query('sb-confirm') private confirm!: SbConfirm;

  /** Re-reads the sessions (sb-admins calls this after a change that ends sessions). */
  async reload(): Promise<void> {
    await this.task.run();
  }

  private async end(session: AdminSessionInfo): Promise<void> {
    const ok = await this.confirm.ask({
      heading: msg('End session'),
      text: session.current
        ? msg('End your own session? You will be signed out.')
        : msg(str`End this session of ${session.username}? They will be signed out at once.`),
      confirmLabel: msg('End session'),
      danger: true,
    });
    if (!ok) return;
    try {
      const { signed_out } = await call('endAdminSession', { params: { session_id: session.session_id } });
      if (signed_out) {
        window.dispatchEvent(new CustomEvent(SESSION_ENDED_EVENT));
        return;
      }
      toast(this, msg(str`Ended a session of ${session.username}.`));
      this.error = '';
      await this.task.run();
    } catch (error) {
      this.error = failureText(error);
    }
  }

  override render() {
    return html`${this.error ? html`<p class="notice error" role="alert">${this.error}</p>` : ''}
      ${renderLoad(
        this.task,
        () => msg('The sessions could not be loaded.'),
        (sessions) => this.table(sessions),
      )}
      <sb-confirm></sb-confirm>`;
  }

  private table(sessions: AdminSessionInfo[]) {
    const locale = currentLocale();
    const time = (iso: string) => formatTime(iso, locale);
    return sessions.length === 0
      ? html`<p class="muted">${msg('No active sessions.')}</p>`
      : html`<table class="stack">
              <thead>
                <tr>
                  <th scope="col">${msg('Administrator')}</th>
                  <th scope="col">${msg('Signed in')}</th>
                  <th scope="col">${msg('Last seen')}</th>
                  <th scope="col">${msg('Address')}</th>
                  <th scope="col">${msg('Browser or client')}</th>
                  <th scope="col"><span class="visually-hidden">${msg('Actions')}</span></th>
                </tr>
              </thead>
              <tbody>
                ${sessions.map(
                  (s) => html`<tr data-session-id=${s.session_id} data-username=${s.username}>
                    <td data-label=${msg('Administrator')}>
                      <strong>${s.username}</strong>
                      ${s.current ? html`<span class="badge ok">${msg('This session')}</span>` : ''}
                    </td>
                    <td data-label=${msg('Signed in')}>${time(s.created_at)}</td>
                    <td data-label=${msg('Last seen')}>${time(s.last_seen_at)}</td>
                    <td data-label=${msg('Address')} class="mono address">${s.client_address}</td>
                    <td data-label=${msg('Browser or client')}>${s.user_agent}</td>
                    <td>
                      <div class="actions">
                        <button
                          type="button"
                          class="danger"
                          @click=${() => this.end(s)}
                        >
                          ${msg('End session')}<span class="visually-hidden"> (${s.username})</span>
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
    'sb-admin-sessions': SbAdminSessions;
  }
}
