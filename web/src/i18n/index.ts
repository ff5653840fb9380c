// i18next with the UI's strings split by area: `base` (what the entry, the logged-in frame and
// the pages before login say) is bundled in English; each page area's English strings come
// with that page's chunk (the page module calls `addArea`), and every Simplified Chinese
// file is its own chunk, loaded when that language is on (at start, on a switch, or when an
// area arrives while it is on).
import i18n from 'i18next';
import { initReactI18next } from 'react-i18next';

import { fromBrowser, htmlLang, isLanguage, type Language } from './languages';
import en from './locales/en_US/base.json';

const STORAGE_KEY = 'langbot_language';

export type Strings = Record<string, unknown>;
export type Area = 'models' | 'apiKeys' | 'mcpServers' | 'workspace' | 'bots' | 'pipelines' | 'monitoring' | 'plugins';

// ./locales/zh_Hans/<area>.json → a loader (one chunk per file); the other languages show English.
const translated = import.meta.glob<Strings>('./locales/zh_Hans/*.json', { import: 'default' });
const loader = (code: Language, area: Area | 'base') => (code === 'en_US' ? undefined : translated[`./locales/${code}/${area}.json`]);

/** The areas whose English strings are in (their pages' modules have run). */
const areas = new Set<Area>();
/** `<language>/<area>` files already added. */
const added = new Set<string>();

let markReady: () => void = () => undefined;
const ready = new Promise<void>((resolve) => (markReady = resolve));

async function addTranslation(code: Language, area: Area | 'base'): Promise<void> {
  const load = loader(code, area);
  const id = `${code}/${area}`;
  if (!load || added.has(id)) return;
  const strings = await load();
  i18n.addResourceBundle(code, 'translation', strings, true, true);
  added.add(id);
}

/** Adds a page area's strings (English, and the current language's) before its page renders;
 *  a page module awaits it at its top level. */
export async function addArea(area: Area, english: Strings): Promise<void> {
  await ready;
  if (!areas.has(area)) {
    i18n.addResourceBundle('en_US', 'translation', english, true, true);
    areas.add(area);
  }
  if (isLanguage(i18n.language)) await addTranslation(i18n.language, area);
}

export function storedLanguage(): Language {
  const stored = localStorage.getItem(STORAGE_KEY);
  return isLanguage(stored) ? stored : fromBrowser(navigator.languages);
}

/** Switches the UI's strings (loading them first: the base and every area already in) and `<html lang>`. */
export async function switchLanguage(code: Language): Promise<void> {
  await Promise.all([addTranslation(code, 'base'), ...[...areas].map((area) => addTranslation(code, area))]);
  localStorage.setItem(STORAGE_KEY, code);
  document.documentElement.lang = htmlLang(code);
  await i18n.changeLanguage(code);
}

export async function initI18n(): Promise<void> {
  await i18n.use(initReactI18next).init({
    resources: { en_US: { translation: en } },
    lng: 'en_US',
    fallbackLng: 'en_US',
    partialBundledLanguages: true,
    interpolation: { escapeValue: false },
    returnNull: false,
  });
  await switchLanguage(storedLanguage());
  markReady();
}

export default i18n;
