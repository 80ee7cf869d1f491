import { localized, msg, str } from '@lit/localize';
import { css, html, LitElement } from 'lit';
import { customElement, state } from 'lit/decorators.js';
import { FIELD_LIMITS } from '../../../core/lib/limits.js';
import { ApiFailure, call } from '../api.js';
import { failureText } from '../failure-text.js';
import { shared } from '../styles/shared.js';
import { toast } from '../toast.js';

const { admin_password_min: PASSWORD_MIN, admin_password_max: PASSWORD_MAX } = FIELD_LIMITS;

/** Changes the signed-in administrator's own password (the current one is required). */
@localized()
@customElement('sb-password-form')
export class SbPasswordForm extends LitElement {
  static override styles = [
    shared,
    css`
      form {
        max-width: 24rem;
      }
      .check {
        display: flex;
        gap: 0.5rem;
        align-items: center;
        font-weight: normal;
      }
    `,
  ];

  @state() private error = '';
  @state() private done = '';
  @state() private busy = false;

  private async submit(event: SubmitEvent): Promise<void> {
    event.preventDefault();
    const form = event.target as HTMLFormElement;
    const data = new FormData(form);
    const next = String(data.get('new_password') ?? '');
    this.error = '';
    this.done = '';
    if (next !== String(data.get('repeat') ?? '')) {
      this.error = msg('The two new passwords differ.');
      return;
    }
    this.busy = true;
    try {
      const { ended_sessions } = await call('changeAdminPassword', {
        body: {
          current_password: String(data.get('current_password') ?? ''),
          new_password: next,
          end_other_sessions: data.get('end_others') === 'on',
        },
      });
      this.done = msg(str`Password changed. Other sessions ended: ${ended_sessions}.`);
      toast(this, this.done);
      form.reset();
      this.dispatchEvent(new CustomEvent('sb-sessions-changed', { bubbles: true, composed: true }));
    } catch (error) {
      this.error =
        error instanceof ApiFailure && error.code === 'forbidden'
          ? msg('The current password is wrong.')
          : failureText(error);
    } finally {
      this.busy = false;
    }
  }

  override render() {
    return html`<form @submit=${this.submit}>
      <div class="field">
        <label for="current">${msg('Current password')}</label>
        <input id="current" name="current_password" type="password" autocomplete="current-password" required />
      </div>
      <div class="field">
        <label for="new">${msg('New password')}</label>
        <input
          id="new"
          name="new_password"
          type="password"
          autocomplete="new-password"
          required
          minlength=${PASSWORD_MIN}
          maxlength=${PASSWORD_MAX}
          aria-describedby="new-hint"
        />
        <div class="hint" id="new-hint">${msg(str`At least ${PASSWORD_MIN} characters.`)}</div>
      </div>
      <div class="field">
        <label for="repeat">${msg('Repeat the new password')}</label>
        <input id="repeat" name="repeat" type="password" autocomplete="new-password" required />
      </div>
      <div class="field">
        <label class="check"><input type="checkbox" name="end_others" checked /> ${msg('Sign out my other sessions')}</label>
      </div>
      ${this.error ? html`<p class="notice error" role="alert">${this.error}</p>` : ''}
      <div role="status" aria-live="polite">${this.done ? html`<p class="notice ok">${this.done}</p>` : ''}</div>
      <button class="primary" type="submit" ?disabled=${this.busy}>${msg('Change password')}</button>
    </form>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'sb-password-form': SbPasswordForm;
  }
}
