import { localized, msg, str } from '@lit/localize';
import { css, html, LitElement } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import { FIELD_LIMITS } from '../../../core/lib/limits.js';
import { ApiFailure, call } from '../api.js';
import { failureText } from '../failure-text.js';
import { shared } from '../styles/shared.js';

const {
  admin_password_min: PASSWORD_MIN,
  admin_password_max: PASSWORD_MAX,
  admin_username: USERNAME_MAX,
} = FIELD_LIMITS;

/**
 * First-run set-up from the launcher's one-time link (`/setup#token=…`): creates the first
 * administrator and signs in.
 */
@localized()
@customElement('sb-setup')
export class SbSetup extends LitElement {
  static override styles = [
    shared,
    css`
      form {
        max-width: 24rem;
      }
    `,
  ];

  /** The one-time token from the link, or null when the page was opened without it. */
  @property({ attribute: false }) token: string | null = null;
  @state() private error = '';
  @state() private busy = false;

  private async submit(event: SubmitEvent): Promise<void> {
    event.preventDefault();
    const form = event.target as HTMLFormElement;
    const data = new FormData(form);
    const password = String(data.get('password') ?? '');
    if (password.length < PASSWORD_MIN) {
      this.error = msg(str`The password needs at least ${PASSWORD_MIN} characters.`);
      return;
    }
    if (password !== String(data.get('confirm') ?? '')) {
      this.error = msg('The two passwords differ.');
      return;
    }
    this.busy = true;
    this.error = '';
    try {
      const session = await call('adminSetup', {
        body: { token: this.token ?? '', username: String(data.get('username') ?? ''), password },
      });
      this.dispatchEvent(new CustomEvent('sb-signed-in', { detail: session, bubbles: true, composed: true }));
    } catch (error) {
      this.error =
        error instanceof ApiFailure && error.code === 'unauthenticated'
          ? msg('This set-up link is not valid any more. Restart the server to get a new one.')
          : failureText(error);
    } finally {
      this.busy = false;
    }
  }

  override render() {
    if (!this.token) {
      return html`<h1>${msg('First-run set-up')}</h1>
        <p class="notice">
          ${msg('No administrator exists yet. Open the one-time set-up link that the server printed when it started.')}
        </p>`;
    }
    return html`<h1>${msg('First-run set-up')}</h1>
      <p>${msg('Create the administrator account. You will be signed in right away.')}</p>
      <form @submit=${this.submit} novalidate>
        <div class="field">
          <label for="username">${msg('Username')}</label>
          <input id="username" name="username" value="admin" autocomplete="username" required maxlength=${USERNAME_MAX} pattern="[A-Za-z0-9._\\-]+" />
          <div class="hint">${msg('Letters, digits, dot, dash and underscore.')}</div>
        </div>
        <div class="field">
          <label for="password">${msg('Password')}</label>
          <input
            id="password"
            name="password"
            type="password"
            autocomplete="new-password"
            required
            minlength=${PASSWORD_MIN}
            maxlength=${PASSWORD_MAX}
            aria-describedby="password-hint"
            autofocus
          />
          <div class="hint" id="password-hint">${msg(str`At least ${PASSWORD_MIN} characters.`)}</div>
        </div>
        <div class="field">
          <label for="confirm">${msg('Repeat the password')}</label>
          <input id="confirm" name="confirm" type="password" autocomplete="new-password" required />
        </div>
        ${this.error ? html`<p class="notice error" role="alert">${this.error}</p>` : ''}
        <button class="primary" type="submit" ?disabled=${this.busy}>${msg('Create administrator')}</button>
      </form>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'sb-setup': SbSetup;
  }
}
