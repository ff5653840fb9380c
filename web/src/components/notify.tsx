import { ApiError } from '../api/errors';
import i18n from '../i18n';

// @mantine/notifications is its own chunk: no page needs it for its first render, so it is
// fetched when the app is idle (App mounts its container lazily) or when something is shown.
const load = () => import('@mantine/notifications');

/** The text to show for any failure: the server's localized `msg`, or ours for a network error. */
export function errorText(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.code === 'network') return i18n.t('errors.network');
    return error.message || i18n.t('errors.unknown');
  }
  return error instanceof Error && error.message ? error.message : i18n.t('errors.unknown');
}

function show(options: { color: string; title?: string; message: string; autoClose: number }): void {
  void load().then(({ notifications }) => notifications.show(options));
}

export function notifyError(error: unknown): void {
  show({ color: 'red', title: i18n.t('errors.title'), message: errorText(error), autoClose: 8000 });
}

export function notifySuccess(message: string): void {
  show({ color: 'teal', message, autoClose: 4000 });
}
