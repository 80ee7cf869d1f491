import { describe, expect, it } from 'vitest';
import { allLocales } from '../../admin-ui/src/generated/locale-codes.js';
import { LANGUAGE_NAMES, LOCALES, localeForTag, pickLocale } from '../../admin-ui/src/lib/locale-pick.js';

describe('choosing the console language (REQ-53)', () => {
  it('offers exactly the seven languages the localization build produces, each by its own name', () => {
    expect([...LOCALES].sort()).toEqual([...allLocales].sort());
    expect(LOCALES).toHaveLength(7);
    expect(new Set(Object.values(LANGUAGE_NAMES)).size).toBe(7);
  });

  it('maps browser language tags, Chinese by script and then by region', () => {
    expect(localeForTag('fr-CA')).toBe('fr');
    expect(localeForTag('es-419')).toBe('es');
    expect(localeForTag('RU')).toBe('ru');
    expect(localeForTag('zh')).toBe('zh-Hans');
    expect(localeForTag('zh-CN')).toBe('zh-Hans');
    expect(localeForTag('zh-SG')).toBe('zh-Hans');
    expect(localeForTag('zh-TW')).toBe('zh-Hant');
    expect(localeForTag('zh-HK')).toBe('zh-Hant');
    expect(localeForTag('zh_MO')).toBe('zh-Hant');
    expect(localeForTag('zh-Hant-CN')).toBe('zh-Hant');
    expect(localeForTag('zh-Hans-TW')).toBe('zh-Hans');
    expect(localeForTag('de-DE')).toBeNull();
  });

  it('prefers the stored choice, then the first supported browser language, then English', () => {
    expect(pickLocale('it', ['fr-FR'])).toBe('it');
    expect(pickLocale(null, ['de-DE', 'zh-TW', 'fr'])).toBe('zh-Hant');
    expect(pickLocale('klingon', ['es-MX'])).toBe('es');
    expect(pickLocale(null, ['de', 'ja'])).toBe('en');
    expect(pickLocale(null, [])).toBe('en');
  });
});
