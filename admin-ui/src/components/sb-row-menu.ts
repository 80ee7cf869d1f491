import { css, html, LitElement } from 'lit';
import { customElement, property, queryAll, state } from 'lit/decorators.js';
import { shared } from '../styles/shared.js';

export interface RowMenuItem {
  /** The visible text. */
  label: string;
  /** The accessible name when the text alone is ambiguous out of context ('Delete agent x'). */
  name?: string;
  danger?: boolean;
  action: () => void;
}

let nextId = 0;

/**
 * A row's secondary actions behind one "⋯" button (four buttons took two rows at
 * 1,440 px), following the WAI-ARIA menu button pattern: Enter, Space or Down open the menu on its
 * first item, Up on its last; Down/Up/Home/End move; Escape closes and returns to the button; Tab
 * or a click elsewhere closes it.
 */
@customElement('sb-row-menu')
export class SbRowMenu extends LitElement {
  static override styles = [
    shared,
    css`
      :host {
        display: inline-block;
        position: relative;
      }
      .trigger {
        min-width: 2.25rem;
        justify-content: center;
        font-weight: 700;
        letter-spacing: 0.05em;
      }
      [role='menu'] {
        position: absolute;
        z-index: 20;
        inset-inline-end: 0;
        top: calc(100% + 0.2rem);
        min-width: 12rem;
        margin: 0;
        padding: 0.25rem;
        list-style: none;
        background: var(--sb-surface);
        border: 1px solid var(--sb-border-strong);
        border-radius: 6px;
        box-shadow: 0 6px 18px rgb(0 0 0 / 0.18);
      }
      [role='menuitem'] {
        display: flex;
        width: 100%;
        border: none;
        background: none;
        text-align: start;
        white-space: nowrap;
      }
      [role='menuitem']:hover,
      [role='menuitem']:focus {
        background: var(--sb-hover);
      }
      [role='menuitem'].danger {
        color: var(--sb-danger);
      }
    `,
  ];

  /** The button's accessible name, e.g. 'More actions for codex'. */
  @property() label = '';
  @property({ attribute: false }) items: readonly RowMenuItem[] = [];
  @state() private open = false;
  @queryAll('[role="menuitem"]') private menuItems!: NodeListOf<HTMLButtonElement>;
  private readonly uid = `menu-${nextId++}`;

  private readonly outside = (event: Event): void => {
    if (!event.composedPath().includes(this)) this.close(false);
  };

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    document.removeEventListener('pointerdown', this.outside, true);
  }

  private async show(focus: 'first' | 'last'): Promise<void> {
    this.open = true;
    document.addEventListener('pointerdown', this.outside, true);
    await this.updateComplete;
    const items = [...this.menuItems];
    (focus === 'first' ? items[0] : items.at(-1))?.focus();
  }

  private close(returnFocus: boolean): void {
    if (!this.open) return;
    this.open = false;
    document.removeEventListener('pointerdown', this.outside, true);
    if (returnFocus) this.renderRoot.querySelector<HTMLButtonElement>('.trigger')?.focus();
  }

  private onTriggerKey(event: KeyboardEvent): void {
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      void this.show(event.key === 'ArrowDown' ? 'first' : 'last');
    }
  }

  private onMenuKey(event: KeyboardEvent): void {
    const items = [...this.menuItems];
    const focused = this.renderRoot.querySelector<HTMLButtonElement>(':focus');
    const at = focused ? items.indexOf(focused) : 0;
    const target: Record<string, number> = { ArrowDown: at + 1, ArrowUp: at - 1, Home: 0, End: items.length - 1 };
    const to = target[event.key];
    if (to !== undefined) {
      event.preventDefault();
      items[(to + items.length) % items.length]?.focus();
    } else if (event.key === 'Escape') {
      event.preventDefault();
      event.stopPropagation();
      this.close(true);
    } else if (event.key === 'Tab') {
      this.close(false);
    }
  }

  private activate(item: RowMenuItem): void {
    // Close first: the action may open a dialog, which then takes the focus.
    this.close(true);
    item.action();
  }

  override render() {
    return html`<button
        type="button"
        class="trigger"
        aria-haspopup="menu"
        aria-expanded=${this.open ? 'true' : 'false'}
        aria-controls=${this.uid}
        aria-label=${this.label}
        @click=${() => (this.open ? this.close(true) : this.show('first'))}
        @keydown=${this.onTriggerKey}
      >
        <span aria-hidden="true">⋯</span>
      </button>
      <div id=${this.uid} role="menu" aria-label=${this.label} ?hidden=${!this.open} @keydown=${this.onMenuKey}>
        ${this.items.map(
          (item) => html`<button
            type="button"
            role="menuitem"
            tabindex="-1"
            class=${item.danger ? 'danger' : ''}
            aria-label=${item.name ?? item.label}
            @click=${() => this.activate(item)}
          >
            ${item.label}
          </button>`,
        )}
      </div>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'sb-row-menu': SbRowMenu;
  }
}
