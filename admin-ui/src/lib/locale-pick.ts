/** The console's languages (REQ-53), in the order the language switcher lists them. */
export const LOCALES = ['en', 'fr', 'zh-Hans', 'zh-Hant', 'it', 'es', 'ru'] as const;
export type Locale = (typeof LOCALES)[number];

/** Each language by its own name, so a reader can find theirs whatever language is showing. */
export const LANGUAGE_NAMES: Record<Locale, string> = {
  en: 'English',
  fr: 'Français',
  'zh-Hans': '简体中文',
  'zh-Hant': '繁體中文',
  it: 'Italiano',
  es: 'Español',
  ru: 'Русский',
};

export function isLocale(value: unknown): value is Locale {
  return typeof value === 'string' && (LOCALES as readonly string[]).includes(value);
}

/** Traditional script regions when a tag says only "zh-XX". */
const HANT_REGIONS = new Set(['TW', 'HK', 'MO']);

/** Maps one BCP 47 tag to a console language, or null when we do not have it. */
export function localeForTag(tag: string): Locale | null {
  const parts = tag.replaceAll('_', '-').split('-');
  const language = parts[0]?.toLowerCase();
  if (language === 'zh') {
    const rest = parts.slice(1).map((p) => p.toLowerCase());
    if (rest.includes('hant')) return 'zh-Hant';
    if (rest.includes('hans')) return 'zh-Hans';
    return rest.some((p) => HANT_REGIONS.has(p.toUpperCase())) ? 'zh-Hant' : 'zh-Hans';
  }
  return isLocale(language) ? language : null;
}

/**
 * The language to show: the one the administrator chose before (stored), else the first of the
 * browser's preferred languages we have, else English.
 */
export function pickLocale(stored: string | null, preferred: readonly string[]): Locale {
  if (isLocale(stored)) return stored;
  for (const tag of preferred) {
    const locale = localeForTag(tag);
    if (locale) return locale;
  }
  return 'en';
}
