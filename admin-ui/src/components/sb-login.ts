import { localized, msg } from '@lit/localize';
import { css, html, LitElement } from 'lit';
import { customElement, state } from 'lit/decorators.js';
import { ApiFailure, call } from '../api.js';
import { failureText } from '../failure-text.js';
import { shared } from '../styles/shared.js';

/** Administrator sign-in. The session is an HttpOnly cookie the page never sees. */
@localized()
@customElement('sb-login')
export class SbLogin extends LitElement {
  static override styles = [
    shared,
    css`
      form {
        max-width: 22rem;
      }
    `,
  ];

  @state() private error = '';
  @state() private busy = false;

  private async submit(event: SubmitEvent): Promise<void> {
    event.preventDefault();
    const data = new FormData(event.target as HTMLFormElement);
    this.busy = true;
    this.error = '';
    try {
      const session = await call('adminLogin', {
        body: { username: String(data.get('username') ?? ''), password: String(data.get('password') ?? '') },
      });
      this.dispatchEvent(new CustomEvent('sb-signed-in', { detail: session, bubbles: true, composed: true }));
    } catch (error) {
      this.error =
        error instanceof ApiFailure && error.code === 'unauthenticated'
          ? msg('Wrong username or password.')
          : failureText(error);
    } finally {
      this.busy = false;
    }
  }

  override render() {
    return html`<h1>${msg('Sign in')}</h1>
      <form @submit=${this.submit}>
        <div class="field">
          <label for="username">${msg('Username')}</label>
          <input id="username" name="username" autocomplete="username" required autofocus />
        </div>
        <div class="field">
          <label for="password">${msg('Password')}</label>
          <input id="password" name="password" type="password" autocomplete="current-password" required />
        </div>
        ${this.error ? html`<p class="notice error" role="alert">${this.error}</p>` : ''}
        <button class="primary" type="submit" ?disabled=${this.busy}>${msg('Sign in')}</button>
      </form>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'sb-login': SbLogin;
  }
}
