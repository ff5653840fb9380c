import type { components } from '../api/schema';

export type Language = components['schemas']['Language'];

/** The eight languages the server knows, each named in itself. The UI's own strings exist in
 *  `en_US` and `zh_Hans`; the others show English until translated (server messages still
 *  come in the chosen language where the server has them). */
export const LANGUAGES: readonly { code: Language; name: string }[] = [
  { code: 'en_US', name: 'English' },
  { code: 'zh_Hans', name: '简体中文' },
  { code: 'zh_Hant', name: '繁體中文' },
  { code: 'ja_JP', name: '日本語' },
  { code: 'es_ES', name: 'Español' },
  { code: 'ru_RU', name: 'Русский' },
  { code: 'th_TH', name: 'ไทย' },
  { code: 'vi_VN', name: 'Tiếng Việt' },
];

export function isLanguage(value: string | null | undefined): value is Language {
  return LANGUAGES.some((l) => l.code === value);
}

/** The BCP 47 tag for `<html lang>` and date formatting. */
export function htmlLang(code: Language): string {
  return code.replace('_', '-');
}

/** Picks a language from the browser's preferences (`zh-CN` → `zh_Hans`, `ja` → `ja_JP`). */
export function fromBrowser(preferred: readonly string[]): Language {
  for (const tag of preferred) {
    const lower = tag.toLowerCase();
    if (lower.startsWith('zh')) {
      return /tw|hk|mo|hant/.test(lower) ? 'zh_Hant' : 'zh_Hans';
    }
    const match = LANGUAGES.find((l) => l.code.slice(0, 2).toLowerCase() === lower.slice(0, 2));
    if (match) return match.code;
  }
  return 'en_US';
}
