import { localized, msg } from '@lit/localize';
import { css, html, LitElement, nothing, type PropertyValues } from 'lit';
import { customElement, state } from 'lit/decorators.js';
import { keyed } from 'lit/directives/keyed.js';
import { ApiFailure, call, SESSION_ENDED_EVENT } from '../api.js';
import { icons } from '../icons.js';
import { type Page, parseRoute, pathFor, type Route } from '../lib/route.js';
import { shared } from '../styles/shared.js';
import { TOAST_EVENT } from '../toast.js';
import type { SbToasts } from './sb-toasts.js';
import './sb-agent-page.js';
import './sb-admins.js';
import './sb-agents.js';
import './sb-audit.js';
import './sb-channel-messages.js';
import './sb-channels.js';
import './sb-cleanup.js';
import './sb-groups.js';
import './sb-hosts.js';
import './sb-language-picker.js';
import './sb-login.js';
import './sb-overview.js';
import './sb-settings.js';
import './sb-setup.js';
import './sb-toasts.js';
import './sb-failure.js';

type Phase = 'loading' | 'unreachable' | 'setup' | 'signed-out' | 'signed-in';

/** The pages in the navigation, in order. */
export const NAV_PAGES: readonly Page[] = [
  'overview',
  'hosts',
  'agents',
  'channels',
  'groups',
  'cleanup',
  'settings',
  'admins',
  'audit',
];

function pageTitle(page: Page): string {
  switch (page) {
    case 'overview':
      return msg('Overview');
    case 'hosts':
      return msg('Hosts');
    case 'agents':
      return msg('Agents');
    case 'channels':
      return msg('Channels');
    case 'groups':
      return msg('Groups');
    case 'cleanup':
      return msg('Cleanup');
    case 'settings':
      return msg('Settings');
    case 'admins':
      return msg('Administrators');
    case 'audit':
      return msg('Audit log');
  }
}

/**
 * The console shell: decides between set-up, sign-in and the signed-in pages, routes by path
 * (the worker answers every non-API path with this page), and ends the view when a call finds
 * the session gone.
 */
@localized()
@customElement('sb-app')
export class SbApp extends LitElement {
  static override styles = [
    shared,
    css`
      :host {
        display: grid;
        grid-template-rows: auto 1fr;
        min-height: 100dvh;
      }
      header {
        display: flex;
        align-items: center;
        justify-content: space-between;
        gap: 0.75rem;
        flex-wrap: wrap;
        padding: 0.6rem 1rem;
        border-bottom: 1px solid var(--sb-border);
        background: var(--sb-surface);
      }
      .brand {
        display: flex;
        align-items: center;
        gap: 0.5rem;
        font-weight: 700;
        font-size: 1.1rem;
        color: var(--sb-text);
        text-decoration: none;
      }
      .brand img {
        width: 28px;
        height: 28px;
      }
      .session {
        display: flex;
        align-items: center;
        gap: 0.75rem;
        flex-wrap: wrap;
      }
      .layout {
        display: grid;
        grid-template-columns: 13rem 1fr;
        min-height: 0;
      }
      .layout.bare {
        grid-template-columns: 1fr;
      }
      nav {
        border-right: 1px solid var(--sb-border);
        padding: 0.75rem 0.5rem;
        position: sticky;
        top: 0;
        align-self: start;
        max-height: 100dvh;
        overflow-y: auto;
      }
      nav ul {
        list-style: none;
        margin: 0;
        padding: 0;
        display: flex;
        flex-direction: column;
        gap: 0.15rem;
      }
      nav a {
        display: flex;
        align-items: center;
        gap: 0.6rem;
        padding: 0.5rem 0.7rem;
        border-radius: 6px;
        color: var(--sb-text);
        text-decoration: none;
        white-space: nowrap;
      }
      nav a:hover {
        background: var(--sb-hover);
      }
      nav a[aria-current='page'] {
        background: var(--sb-accent-soft);
        color: var(--sb-accent);
        font-weight: 600;
      }
      main {
        padding: 1.25rem;
        min-width: 0;
        max-width: 80rem;
      }
      .skip {
        position: absolute;
        left: -999px;
      }
      .skip:focus {
        left: 1rem;
        top: 1rem;
        z-index: 10;
        background: var(--sb-bg);
        padding: 0.5rem;
      }
      /* A phone: the navigation becomes a scrolling row of tabs under the header. */
      @media (max-width: 720px) {
        .layout {
          grid-template-columns: 1fr;
        }
        /* The tabs stay on screen while the page scrolls. */
        nav {
          z-index: 5;
          background: var(--sb-bg);
          border-right: none;
          border-bottom: 1px solid var(--sb-border);
          padding: 0.3rem;
          max-height: none;
          align-self: stretch;
        }
        /* All nine tabs on screen at once, three a row, in every language. */
        nav ul {
          display: grid;
          grid-template-columns: repeat(3, minmax(0, 1fr));
          gap: 0.1rem 0.2rem;
        }
        nav a {
          gap: 0.3rem;
          padding: 0.3rem 0.4rem;
          font-size: 0.85rem;
          white-space: normal;
          overflow-wrap: anywhere;
          line-height: 1.2;
          min-height: 2.1rem;
        }
        nav a svg {
          flex: none;
        }
        main {
          padding: 1rem 0.75rem;
        }
        .username {
          display: none;
        }
        header {
          padding: 0.5rem 0.75rem;
        }
      }
    `,
  ];

  @state() private phase: Phase = 'loading';
  @state() private route: Route = parseRoute(location.pathname, location.hash);
  @state() private username = '';
  @state() private error: unknown = null;

  private readonly onPopState = () => {
    this.route = parseRoute(location.pathname, location.hash);
  };

  /** Completed actions, announced by any view with `sb-toast` (admin-ui/src/toast.ts). */
  private readonly onToast = (event: Event) => {
    const message = (event as CustomEvent<{ message?: unknown }>).detail?.message;
    if (typeof message === 'string' && message) this.renderRoot.querySelector<SbToasts>('sb-toasts')?.show(message);
  };

  private readonly onSessionEnded = () => {
    if (this.phase === 'signed-in') this.phase = 'signed-out';
  };

  override connectedCallback(): void {
    super.connectedCallback();
    window.addEventListener('popstate', this.onPopState);
    window.addEventListener(SESSION_ENDED_EVENT, this.onSessionEnded);
    this.addEventListener(TOAST_EVENT, this.onToast);
    void this.start();
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    window.removeEventListener('popstate', this.onPopState);
    window.removeEventListener(SESSION_ENDED_EVENT, this.onSessionEnded);
    this.removeEventListener(TOAST_EVENT, this.onToast);
  }

  private async start(): Promise<void> {
    this.phase = 'loading';
    try {
      const { needs_setup } = await call('adminSetupStatus');
      if (needs_setup) {
        this.phase = 'setup';
        return;
      }
      if (this.route.kind === 'setup') this.navigate('overview', true);
      const session = await call('adminSession');
      this.username = session.username;
      this.phase = 'signed-in';
    } catch (error) {
      if (error instanceof ApiFailure && error.code === 'unauthenticated') {
        this.phase = 'signed-out';
      } else {
        this.error = error;
        this.phase = 'unreachable';
      }
    }
  }

  private signedIn(event: CustomEvent<{ username: string }>): void {
    this.username = event.detail.username;
    this.phase = 'signed-in';
    // The set-up token has been used; keep it out of the address bar and history.
    if (this.route.kind === 'setup') this.navigate('overview', true);
  }

  private async signOut(): Promise<void> {
    try {
      await call('adminLogout');
    } catch {
      // Signed out either way: an expired session cannot be ended twice.
    }
    this.username = '';
    this.phase = 'signed-out';
  }

  /**
   * Shows a page at its plain address. A list already on screen hears it too (popstate, as for
   * Back), so its link shows the list without filters (lib/list-address.ts).
   */
  private navigate(page: Page, replace = false): void {
    const path = pathFor(page);
    const here = `${location.pathname}${location.search}${location.hash}` === path;
    if (replace || here) history.replaceState(null, '', path);
    else history.pushState(null, '', path);
    window.dispatchEvent(new PopStateEvent('popstate'));
  }

  private async follow(event: MouseEvent, page: Page): Promise<void> {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    this.navigate(page);
    await this.updateComplete;
    // Move focus to the new page's heading so keyboard and screen-reader users land there.
    const main = this.renderRoot.querySelector('main');
    main?.focus();
  }

  private currentPage(): Page {
    return this.route.kind === 'page' ? this.route.page : 'overview';
  }

  private pageView() {
    switch (this.currentPage()) {
      case 'hosts':
        return html`<sb-hosts></sb-hosts>`;
      case 'agents': {
        const agentId = this.route.kind === 'page' ? this.route.agentId : undefined;
        return agentId
          ? keyed(agentId, html`<sb-agent-page agent-id=${agentId}></sb-agent-page>`)
          : html`<sb-agents></sb-agents>`;
      }
      case 'channels': {
        const channelId = this.route.kind === 'page' ? this.route.channelId : undefined;
        // Keyed: another channel is another view, loaded afresh.
        return channelId
          ? keyed(channelId, html`<sb-channel-messages channel-id=${channelId}></sb-channel-messages>`)
          : html`<sb-channels></sb-channels>`;
      }
      case 'groups':
        return html`<sb-groups></sb-groups>`;
      case 'cleanup':
        return html`<sb-cleanup></sb-cleanup>`;
      case 'settings':
        return html`<sb-settings></sb-settings>`;
      case 'admins':
        return html`<sb-admins></sb-admins>`;
      case 'audit':
        return html`<sb-audit></sb-audit>`;
      default:
        return html`<sb-overview></sb-overview>`;
    }
  }

  private body() {
    switch (this.phase) {
      case 'loading':
        return html`<p class="muted">${msg('Loading…')}</p>`;
      case 'unreachable':
        return html`<h1>${msg('Switchboard administration')}</h1>
          <sb-failure
            .what=${msg('The console could not start.')}
            .error=${this.error}
            @sb-retry=${this.start}
          ></sb-failure>`;
      case 'setup':
        return html`<sb-setup .token=${this.route.kind === 'setup' ? this.route.token : null}></sb-setup>`;
      case 'signed-out':
        return html`<sb-login></sb-login>`;
      case 'signed-in':
        return this.pageView();
    }
  }

  override updated(changed: PropertyValues): void {
    if (changed.has('route') || changed.has('phase')) this.revealCurrentTab();
    const title = this.phase === 'signed-in' ? `${pageTitle(this.currentPage())} · Switchboard` : 'Switchboard';
    if (document.title !== title) document.title = title;
  }

  /**
   * On a phone the tabs are a row wider than the screen: scroll the row (never the page) so the
   * current tab is in view, centred when it can be, after every navigation and on a direct load.
   */
  private revealCurrentTab(): void {
    const nav = this.renderRoot.querySelector('nav');
    const tab = nav?.querySelector<HTMLElement>('a[aria-current="page"]');
    if (!nav || !tab || nav.scrollWidth <= nav.clientWidth) return;
    const [box, at] = [nav.getBoundingClientRect(), tab.getBoundingClientRect()];
    nav.scrollTo({ left: Math.max(0, nav.scrollLeft + at.left - box.left - (nav.clientWidth - at.width) / 2) });
  }

  override render() {
    const signedIn = this.phase === 'signed-in';
    const current = this.currentPage();
    return html`<a class="skip" href="#content" @click=${(e: Event) => {
      e.preventDefault();
      this.renderRoot.querySelector('main')?.focus();
    }}>${msg('Skip to content')}</a>
      <header>
        <a class="brand" href="/" @click=${(e: MouseEvent) => this.follow(e, 'overview')}>
          <img src="/favicon.svg" alt="" />
          <span>Switchboard</span>
        </a>
        <div class="session">
          <sb-language-picker></sb-language-picker>
          ${
            signedIn
              ? html`<span class="muted username">${this.username}</span>
                  <button type="button" @click=${this.signOut}>${icons.signOut} ${msg('Sign out')}</button>`
              : nothing
          }
        </div>
      </header>
      <div class="layout ${signedIn ? '' : 'bare'}">
        ${
          signedIn
            ? html`<nav aria-label=${msg('Main')}>
                <ul>
                  ${NAV_PAGES.map(
                    (page) => html`<li>
                      <a
                        href=${pathFor(page)}
                        aria-current=${page === current ? 'page' : 'false'}
                        @click=${(e: MouseEvent) => this.follow(e, page)}
                        >${icons[page]} ${pageTitle(page)}</a
                      >
                    </li>`,
                  )}
                </ul>
                <sb-toasts docked></sb-toasts>
              </nav>`
            : nothing
        }
        <main id="main" tabindex="-1" @sb-signed-in=${this.signedIn}>${this.body()}</main>
      </div>
      ${signedIn ? nothing : html`<sb-toasts></sb-toasts>`}`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'sb-app': SbApp;
  }
}
