/**
 * @lit/localize in runtime mode: English is compiled in, the other six languages are loaded on
 * demand from modules that `lit-localize build` generates from xliff/*.xlf. The choice persists
 * in localStorage; without one, the browser's preferred languages decide.
 */
import { configureLocalization } from '@lit/localize';
import { sourceLocale, targetLocales } from './generated/locale-codes.js';
import { isLocale, type Locale, pickLocale } from './lib/locale-pick.js';

type TargetLocale = (typeof targetLocales)[number];

const loaders: Record<TargetLocale, () => Promise<{ templates: Record<string, unknown> }>> = {
  fr: () => import('./generated/locales/fr.js'),
  'zh-Hans': () => import('./generated/locales/zh-Hans.js'),
  'zh-Hant': () => import('./generated/locales/zh-Hant.js'),
  it: () => import('./generated/locales/it.js'),
  es: () => import('./generated/locales/es.js'),
  ru: () => import('./generated/locales/ru.js'),
};

const STORAGE_KEY = 'switchboard.locale';

const { getLocale, setLocale } = configureLocalization({
  sourceLocale,
  targetLocales,
  loadLocale: (locale) => loaders[locale as TargetLocale]() as never,
});

export function currentLocale(): Locale {
  const locale = getLocale();
  return isLocale(locale) ? locale : 'en';
}

function storedLocale(): string | null {
  try {
    return localStorage.getItem(STORAGE_KEY);
  } catch {
    return null; // storage disabled: fall back to the browser's languages
  }
}

async function apply(locale: Locale): Promise<void> {
  await setLocale(locale);
  document.documentElement.lang = locale;
}

/** Shows the stored or browser-preferred language; call once at start-up. */
export function startLocalization(): Promise<void> {
  return apply(pickLocale(storedLocale(), navigator.languages ?? [navigator.language]));
}

/** Switches language and remembers the choice for the next visit. */
export async function chooseLocale(locale: Locale): Promise<void> {
  // Remembered before the translations load, so a navigation right after the choice keeps it.
  try {
    localStorage.setItem(STORAGE_KEY, locale);
  } catch {
    // The switch still applies to this visit.
  }
  await apply(locale);
}
