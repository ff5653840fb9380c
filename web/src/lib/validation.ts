import type { TFunction } from 'i18next';

/** The server's rules, checked early so the form can say so at the field. */
export const MIN_PASSWORD = 8;

export function emailProblem(value: string, t: TFunction): string | null {
  const v = value.trim();
  if (!v) return t('common.required');
  return /^[^\s@]+@[^\s@]+$/.test(v) && v.length <= 320 ? null : t('auth.emailInvalid');
}

export function passwordProblem(value: string, t: TFunction): string | null {
  return value.length >= MIN_PASSWORD ? null : t('auth.passwordRule');
}
