/**
 * REQ-53: every console string exists in all seven languages. Fails when a message in the source
 * has no translation, when a translation is missing or empty, when it equals the English text
 * where it should differ, when placeholders do not match, or when the XLIFF files or the
 * generated modules are stale.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAME_AS_ENGLISH } from './same-as-english.js';

const UI = resolve(import.meta.dirname, '../../admin-ui');
const CONFIG = JSON.parse(readFileSync(join(UI, 'lit-localize.json'), 'utf8')) as {
  targetLocales: string[];
  inputFiles: string[];
};

interface Unit {
  id: string;
  source: string;
  target: string | null;
}

function parseXliff(text: string): Unit[] {
  const units: Unit[] = [];
  for (const m of text.matchAll(/<trans-unit id="([^"]+)">([\s\S]*?)<\/trans-unit>/g)) {
    const body = m[2] as string;
    const source = /<source>([\s\S]*?)<\/source>/.exec(body)?.[1];
    const target = /<target>([\s\S]*?)<\/target>/.exec(body)?.[1];
    if (source === undefined) throw new Error(`unit ${m[1]} has no source`);
    units.push({ id: m[1] as string, source, target: target ?? null });
  }
  return units;
}

const placeholders = (xml: string) => [...xml.matchAll(/<x id="(\d+)"/g)].map((m) => m[1]).sort();
const plain = (xml: string) => xml.replace(/<x [^>]*\/>/g, '').trim();

const committed = Object.fromEntries(
  CONFIG.targetLocales.map((locale) => [locale, parseXliff(readFileSync(join(UI, 'xliff', `${locale}.xlf`), 'utf8'))]),
) as Record<string, Unit[]>;

let extracted: Unit[] = [];
let scratch = '';

beforeAll(() => {
  // Extract the messages the source uses now, into a scratch directory (never the tree).
  scratch = mkdtempSync(join(tmpdir(), 'switchboard-i18n-'));
  const config = {
    sourceLocale: 'en',
    targetLocales: ['fr'],
    inputFiles: CONFIG.inputFiles.map((glob) => join(UI, glob)),
    output: { mode: 'runtime', outputDir: join(scratch, 'out') },
    interchange: { format: 'xliff', xliffDir: join(scratch, 'xliff') },
  };
  writeFileSync(join(scratch, 'lit-localize.json'), JSON.stringify(config));
  execFileSync(
    join(resolve(UI, '..'), 'node_modules/.bin/lit-localize'),
    ['extract', '--config', 'lit-localize.json'],
    {
      cwd: scratch,
      stdio: 'pipe',
    },
  );
  extracted = parseXliff(readFileSync(join(scratch, 'xliff', 'fr.xlf'), 'utf8'));
});

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe('console translations', () => {
  it('covers the seven languages', () => {
    expect(['en', ...CONFIG.targetLocales].sort()).toEqual(['en', 'es', 'fr', 'it', 'ru', 'zh-Hans', 'zh-Hant']);
  });

  it('has extracted every message of the source (run `npm run ui:extract` after adding strings)', () => {
    expect(extracted.length).toBeGreaterThan(100);
    for (const locale of CONFIG.targetLocales) {
      const ids = new Set(committed[locale]?.map((u) => u.id));
      const absent = extracted.filter((u) => !ids.has(u.id)).map((u) => u.source);
      expect(absent, `${locale}.xlf lacks these messages`).toEqual([]);
      const used = new Set(extracted.map((u) => u.id));
      const stale = (committed[locale] ?? []).filter((u) => !used.has(u.id)).map((u) => u.source);
      expect(stale, `${locale}.xlf has messages the source no longer uses`).toEqual([]);
    }
  });

  for (const locale of CONFIG.targetLocales) {
    it(`translates every message into ${locale}`, () => {
      const allowed = new Set((SAME_AS_ENGLISH as Record<string, readonly string[]>)[locale]);
      for (const unit of committed[locale] ?? []) {
        expect(unit.target, `${locale}: no translation for "${unit.source}"`).not.toBeNull();
        const target = unit.target as string;
        expect(plain(target), `${locale}: empty translation for "${unit.source}"`).not.toBe('');
        if (!allowed.has(unit.source)) {
          expect(target, `${locale}: "${unit.source}" is left in English`).not.toBe(unit.source);
        }
        expect(placeholders(target), `${locale}: placeholders of "${unit.source}"`).toEqual(placeholders(unit.source));
      }
    });

    it(`has generated the ${locale} module from the current XLIFF (npm run build:ui)`, () => {
      const module = readFileSync(join(UI, 'src/generated/locales', `${locale}.ts`), 'utf8');
      const keys = [...module.matchAll(/^\s*'([sh][0-9a-f]{16})':/gm)].map((m) => m[1]).sort();
      expect(keys).toEqual((committed[locale] ?? []).map((u) => u.id).sort());
    });
  }

  it('allows English-identical targets only where such a message exists', () => {
    for (const [locale, sources] of Object.entries(SAME_AS_ENGLISH)) {
      for (const source of sources) {
        const unit = committed[locale]?.find((u) => u.source === source);
        expect(unit?.target, `${locale}: "${source}"`).toBe(source);
      }
    }
  });

  it('calls an agent by one word in each language (never 代理, "proxy", in Chinese)', () => {
    const TERM: Record<string, RegExp> = {
      fr: /agent/i,
      es: /agente/i,
      it: /agent[ei]/i,
      ru: /агент/i,
      'zh-Hans': /智能体/,
      'zh-Hant': /智能體/,
    };
    const OTHER: Record<string, RegExp> = { 'zh-Hans': /代理/, 'zh-Hant': /代理/ };
    for (const locale of CONFIG.targetLocales) {
      const term = TERM[locale] as RegExp;
      for (const unit of committed[locale] ?? []) {
        const target = plain(unit.target ?? '');
        if (OTHER[locale]) expect(target, `${locale}: "${unit.source}"`).not.toMatch(OTHER[locale] as RegExp);
        if (/\bagents?\b/i.test(plain(unit.source))) expect(target, `${locale}: "${unit.source}"`).toMatch(term);
      }
    }
  });

  it('ships no other translation files', () => {
    expect(readdirSync(join(UI, 'xliff')).sort()).toEqual(CONFIG.targetLocales.map((l) => `${l}.xlf`).sort());
  });
});
