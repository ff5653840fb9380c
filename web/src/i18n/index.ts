// i18next with English bundled and Simplified Chinese loaded on demand (its own chunk).
import i18n from 'i18next';
import { initReactI18next } from 'react-i18next';

import en from './locales/en_US.json';
import { fromBrowser, htmlLang, isLanguage, type Language } from './languages';

const STORAGE_KEY = 'langbot_language';

const loaders: Partial<Record<Language, () => Promise<{ default: Record<string, unknown> }>>> = {
  zh_Hans: () => import('./locales/zh_Hans.json'),
};

export function storedLanguage(): Language {
  const stored = localStorage.getItem(STORAGE_KEY);
  return isLanguage(stored) ? stored : fromBrowser(navigator.languages);
}

/** Switches the UI's strings (loading them first) and `<html lang>`. */
export async function switchLanguage(code: Language): Promise<void> {
  const load = loaders[code];
  if (load && !i18n.hasResourceBundle(code, 'translation')) {
    const strings = await load();
    i18n.addResourceBundle(code, 'translation', strings.default);
  }
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
}

export default i18n;
