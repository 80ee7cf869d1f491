import { localized, msg, str } from '@lit/localize';
import { Task } from '@lit/task';
import { css, html, LitElement } from 'lit';
import { customElement, query, state } from 'lit/decorators.js';
import { FIELD_LIMITS } from '../../../core/lib/limits.js';
import { type AdminAccount, call, SESSION_ENDED_EVENT } from '../api.js';
import { failureText } from '../failure-text.js';
import { formatTime } from '../lib/format.js';
import { renderLoad } from '../load-state.js';
import { currentLocale } from '../localization.js';
import { shared } from '../styles/shared.js';
import { toast } from '../toast.js';
import type { SbAdminSessions } from './sb-admin-sessions.js';
import type { SbConfirm } from './sb-confirm.js';
import './sb-admin-sessions.js';
import './sb-confirm.js';
import './sb-password-form.js';

const {
  admin_password_min: PASSWORD_MIN,
  admin_password_max: PASSWORD_MAX,
  admin_username: USERNAME_MAX,
} = FIELD_LIMITS;

/**
 * Administrators: your own password, the accounts (add, enable/disable, delete; the server keeps
 * at least one enabled), and every live session, which can be ended.
 */
@localized()
@customElement('sb-admins')
export class SbAdmins extends LitElement {
  static override styles = [
    shared,
    css`
      section {
        margin-block: 1.5rem 2rem;
      }
      form.inline {
        display: flex;
        flex-wrap: wrap;
        gap: 0.75rem;
        align-items: end;
      }
      form.inline .field {
        margin: 0;
      }
    `,
  ];

  /** The accounts and who is signed in (to mark "you" and sign out on disabling yourself). */
  private readonly task = new Task(this, {
    task: async () => {
      const [list, session] = await Promise.all([call('listAdmins'), call('adminSession')]);
      return { admins: list.admins, me: session.username };
    },
    args: () => [],
  });
  /** An action's refusal; a failed load is the task's. */
  @state() private error = '';
  @state() private busy = false;
  @query('sb-confirm') private confirm!: SbConfirm;
  @query('sb-admin-sessions') private sessions!: SbAdminSessions;

  private get me(): string {
    return this.task.value?.me ?? '';
  }

  private async refresh(): Promise<void> {
    await Promise.all([this.task.run(), this.sessions?.reload()]);
  }

  private async create(event: SubmitEvent): Promise<void> {
    event.preventDefault();
    const form = event.target as HTMLFormElement;
    const data = new FormData(form);
    const username = String(data.get('username') ?? '');
    this.busy = true;
    try {
      await call('createAdmin', { body: { username, password: String(data.get('password') ?? '') } });
      toast(this, msg(str`Added administrator ${username}.`));
      form.reset();
      this.error = '';
      await this.refresh();
    } catch (error) {
      this.error = failureText(error);
    } finally {
      this.busy = false;
    }
  }

  private async setEnabled(admin: AdminAccount, enabled: boolean): Promise<void> {
    if (!enabled) {
      const ok = await this.confirm.ask({
        heading: msg('Disable administrator'),
        text: msg(str`Disable ${admin.username}? Their sessions end at once and they cannot sign in.`),
        confirmLabel: msg('Disable'),
        danger: true,
      });
      if (!ok) return;
    }
    try {
      await call('updateAdmin', { params: { username: admin.username }, body: { enabled } });
      if (!enabled && admin.username === this.me) {
        window.dispatchEvent(new CustomEvent(SESSION_ENDED_EVENT));
        return;
      }
      toast(this, enabled ? msg(str`Enabled ${admin.username}.`) : msg(str`Disabled ${admin.username}.`));
      this.error = '';
      await this.refresh();
    } catch (error) {
      this.error = failureText(error);
    }
  }

  private async deleteAdmin(admin: AdminAccount): Promise<void> {
    const ok = await this.confirm.ask({
      heading: msg('Delete administrator'),
      text:
        admin.username === this.me
          ? msg('Delete your own account? You will be signed out.')
          : msg(str`Delete administrator ${admin.username}? Their sessions end at once.`),
      confirmLabel: msg('Delete'),
      danger: true,
    });
    if (!ok) return;
    try {
      await call('deleteAdmin', { params: { username: admin.username } });
      if (admin.username === this.me) {
        window.dispatchEvent(new CustomEvent(SESSION_ENDED_EVENT));
        return;
      }
      toast(this, msg(str`Deleted administrator ${admin.username}.`));
      this.error = '';
      await this.refresh();
    } catch (error) {
      this.error = failureText(error);
    }
  }

  private table(admins: AdminAccount[]) {
    const locale = currentLocale();
    return html`<table class="stack">
          <thead>
            <tr>
              <th scope="col">${msg('Username')}</th>
              <th scope="col">${msg('Status')}</th>
              <th scope="col">${msg('Created')}</th>
              <th scope="col">${msg('Active sessions')}</th>
              <th scope="col"><span class="visually-hidden">${msg('Actions')}</span></th>
            </tr>
          </thead>
          <tbody>
            ${admins.map(
              (a) => html`<tr data-username=${a.username}>
                <td data-label=${msg('Username')}>
                  <strong>${a.username}</strong> ${a.username === this.me ? html`<span class="muted">(${msg('you')})</span>` : ''}
                </td>
                <td data-label=${msg('Status')}>
                  ${a.enabled ? html`<span class="badge ok">${msg('Enabled')}</span>` : html`<span class="badge off">${msg('Disabled')}</span>`}
                </td>
                <td data-label=${msg('Created')}>${formatTime(a.created_at, locale)}</td>
                <td data-label=${msg('Active sessions')}>${a.active_sessions}</td>
                <td>
                  <div class="actions">
                    <button
                      type="button"
                      @click=${() => this.setEnabled(a, !a.enabled)}
                      aria-label=${a.enabled ? msg(str`Disable ${a.username}`) : msg(str`Enable ${a.username}`)}
                    >
                      ${a.enabled ? msg('Disable') : msg('Enable')}
                    </button>
                    <button
                      type="button"
                      class="danger"
                      @click=${() => this.deleteAdmin(a)}
                      aria-label=${msg(str`Delete administrator ${a.username}`)}
                    >
                      ${msg('Delete')}
                    </button>
                  </div>
                </td>
              </tr>`,
            )}
          </tbody>
        </table>`;
  }

  override render() {
    return html`<h1>${msg('Administrators')}</h1>
      ${this.error ? html`<p class="notice error" role="alert">${this.error}</p>` : ''}
      <section aria-labelledby="accounts">
        <h2 id="accounts">${msg('Accounts')}</h2>
        ${renderLoad(
          this.task,
          () => msg('The administrators could not be loaded.'),
          ({ admins }) => this.table(admins),
        )}
        <h3>${msg('Add an administrator')}</h3>
        <form class="inline" @submit=${this.create}>
          <div class="field">
            <label for="new-username">${msg('Username')}</label>
            <input id="new-username" name="username" required maxlength=${USERNAME_MAX} pattern="[A-Za-z0-9._\\-]+" autocomplete="off" />
          </div>
          <div class="field">
            <label for="new-admin-password">${msg('Initial password')}</label>
            <input
              id="new-admin-password"
              name="password"
              type="password"
              autocomplete="new-password"
              required
              minlength=${PASSWORD_MIN}
              maxlength=${PASSWORD_MAX}
              aria-describedby="new-admin-hint"
            />
            <div class="hint" id="new-admin-hint">${msg(str`At least ${PASSWORD_MIN} characters.`)}</div>
          </div>
          <button class="primary" type="submit" ?disabled=${this.busy}>${msg('Add administrator')}</button>
        </form>
      </section>
      <section aria-labelledby="sessions">
        <h2 id="sessions">${msg('Active sessions')}</h2>
        <sb-admin-sessions></sb-admin-sessions>
      </section>
      <section aria-labelledby="password">
        <h2 id="password">${msg('Change your password')}</h2>
        <sb-password-form @sb-sessions-changed=${this.refresh}></sb-password-form>
      </section>
      <sb-confirm></sb-confirm>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'sb-admins': SbAdmins;
  }
}
