import { localized, msg } from '@lit/localize';
import { css, html, LitElement } from 'lit';
import { customElement } from 'lit/decorators.js';
import { isLocale, LANGUAGE_NAMES, LOCALES } from '../lib/locale-pick.js';
import { chooseLocale, currentLocale } from '../localization.js';
import { shared } from '../styles/shared.js';

/** The language switcher; each language is listed by its own name. */
@localized()
@customElement('sb-language-picker')
export class SbLanguagePicker extends LitElement {
  static override styles = [
    shared,
    css`
      :host {
        display: inline-flex;
        align-items: center;
        gap: 0.4rem;
      }
      label {
        margin: 0;
        font-weight: normal;
        font-size: 0.875rem;
      }
      select {
        width: auto;
      }
    `,
  ];

  private async onChange(event: Event): Promise<void> {
    const value = (event.target as HTMLSelectElement).value;
    if (isLocale(value)) await chooseLocale(value);
  }

  override render() {
    const current = currentLocale();
    return html`<label for="language">${msg('Language')}</label>
      <select id="language" @change=${this.onChange}>
        ${LOCALES.map(
          (locale) =>
            html`<option value=${locale} lang=${locale} .selected=${locale === current}>
              ${LANGUAGE_NAMES[locale]}
            </option>`,
        )}
      </select>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'sb-language-picker': SbLanguagePicker;
  }
}
