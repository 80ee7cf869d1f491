import { localized, msg } from '@lit/localize';
import { css, html, LitElement } from 'lit';
import { customElement, state } from 'lit/decorators.js';
import { repeat } from 'lit/directives/repeat.js';
import { shared } from '../styles/shared.js';

/** Long enough to read a sentence twice; paused while the pointer or focus is on the toasts. */
const SHOW_MS = 6000;

interface Toast {
  id: number;
  message: string;
}

/**
 * The toast region of sb-app: completed actions announced politely (never stealing focus), each
 * dismissable from the keyboard, gone by themselves after a few seconds.
 */
@localized()
@customElement('sb-toasts')
export class SbToasts extends LitElement {
  static override styles = [
    shared,
    css`
      :host {
        position: fixed;
        right: 1rem;
        bottom: 1rem;
        z-index: 20;
        display: flex;
        flex-direction: column;
        gap: 0.5rem;
        max-width: min(28rem, calc(100vw - 2rem));
      }
      /*
       * Signed in, the toasts sit in the navigation column under the links (on a phone under the
       * tabs), in the flow: they never cover a control of the page.
       */
      :host([docked]) {
        position: static;
        max-width: none;
        margin-top: 0.5rem;
      }
      :host([docked]:empty) {
        margin: 0;
      }
      .toast {
        display: flex;
        align-items: center;
        gap: 0.75rem;
        padding: 0.6rem 0.8rem;
        border-radius: 8px;
        border: 1px solid var(--sb-border);
        background: var(--sb-surface);
        box-shadow: 0 4px 16px rgb(0 0 0 / 0.15);
      }
      .toast p {
        margin: 0;
        flex: 1;
      }
    `,
  ];

  @state() private toasts: Toast[] = [];
  private next = 0;
  private paused = false;
  private readonly timers = new Map<number, ReturnType<typeof setTimeout>>();

  show(message: string): void {
    const id = this.next++;
    this.toasts = [...this.toasts, { id, message }];
    this.schedule(id);
  }

  private schedule(id: number): void {
    this.timers.set(
      id,
      setTimeout(() => {
        if (this.paused) this.schedule(id);
        else this.dismiss(id);
      }, SHOW_MS),
    );
  }

  private dismiss(id: number): void {
    clearTimeout(this.timers.get(id));
    this.timers.delete(id);
    this.toasts = this.toasts.filter((t) => t.id !== id);
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }

  override render() {
    const pause = (paused: boolean) => () => {
      this.paused = paused;
    };
    // Only a mouse pauses by hovering: a tap sends pointerenter with no pointerleave, which would
    // keep a toast on a phone for good.
    const hover = (paused: boolean) => (event: PointerEvent) => {
      if (event.pointerType === 'mouse') this.paused = paused;
    };
    return html`<div
      role="status"
      aria-live="polite"
      aria-label=${msg('Notifications')}
      @pointerenter=${hover(true)}
      @pointerleave=${hover(false)}
      @focusin=${pause(true)}
      @focusout=${pause(false)}
    >
      ${repeat(
        this.toasts,
        (t) => t.id,
        (t) => html`<div class="toast notice ok" data-toast>
          <p>${t.message}</p>
          <button type="button" @click=${() => this.dismiss(t.id)} aria-label=${msg('Dismiss')}>×</button>
        </div>`,
      )}
    </div>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'sb-toasts': SbToasts;
  }
}
