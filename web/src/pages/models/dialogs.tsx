// The Models page's dialogs are their own chunks (their form inputs are most of the page's
// code): the list renders without them, and they are fetched once the page is idle, so a
// click finds them loaded.
import { lazy, type ReactNode, Suspense, useEffect } from 'react';

const loadProviderForm = () => import('./ProviderForm');
const loadModelForm = () => import('./ModelForm');
const loadDeleteProvider = () => import('./DeleteProvider');

export const ProviderFormModal = lazy(() => loadProviderForm().then((m) => ({ default: m.ProviderFormModal })));
export const ModelFormModal = lazy(() => loadModelForm().then((m) => ({ default: m.ModelFormModal })));
export const DeleteProviderModal = lazy(() => loadDeleteProvider().then((m) => ({ default: m.DeleteProviderModal })));

/** Shows a lazily loaded dialog (nothing while its chunk arrives). */
export function Dialog({ children }: { children: ReactNode }) {
  return <Suspense fallback={null}>{children}</Suspense>;
}

/** Fetches the dialogs' chunks after the page has rendered. */
export function usePrefetchDialogs(): void {
  useEffect(() => {
    const start = () => {
      for (const load of [loadProviderForm, loadModelForm, loadDeleteProvider]) void load().catch(() => undefined);
    };
    if ('requestIdleCallback' in globalThis) {
      const id = requestIdleCallback(start, { timeout: 2000 });
      return () => cancelIdleCallback(id);
    }
    const id = setTimeout(start, 200);
    return () => clearTimeout(id);
  }, []);
}
