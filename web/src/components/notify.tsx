import { notifications } from '@mantine/notifications';

import { ApiError } from '../api/errors';
import i18n from '../i18n';

/** The text to show for any failure: the server's localized `msg`, or ours for a network error. */
export function errorText(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.code === 'network') return i18n.t('errors.network');
    return error.message || i18n.t('errors.unknown');
  }
  return error instanceof Error && error.message ? error.message : i18n.t('errors.unknown');
}

export function notifyError(error: unknown): void {
  notifications.show({ color: 'red', title: i18n.t('errors.title'), message: errorText(error), autoClose: 8000 });
}

export function notifySuccess(message: string): void {
  notifications.show({ color: 'teal', message, autoClose: 4000 });
}
