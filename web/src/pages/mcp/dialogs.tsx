// The MCP page's dialogs are their own chunks (the form's inputs are most of the page's code):
// the list renders without them, and they are fetched once the page is idle.
import { lazy, type ReactNode, Suspense, useEffect } from 'react';

const loadForm = () => import('./ServerForm');
const loadDetail = () => import('./ServerDetail');

export const ServerFormModal = lazy(() => loadForm().then((m) => ({ default: m.ServerFormModal })));
export const ServerDetailModal = lazy(() => loadDetail().then((m) => ({ default: m.ServerDetailModal })));

/** Shows a lazily loaded dialog (nothing while its chunk arrives). */
export function Dialog({ children }: { children: ReactNode }) {
  return <Suspense fallback={null}>{children}</Suspense>;
}

/** Fetches the dialogs' chunks after the page has rendered. */
export function usePrefetchDialogs(): void {
  useEffect(() => {
    const start = () => {
      for (const load of [loadForm, loadDetail]) void load().catch(() => undefined);
    };
    if ('requestIdleCallback' in globalThis) {
      const id = requestIdleCallback(start, { timeout: 2000 });
      return () => cancelIdleCallback(id);
    }
    const id = setTimeout(start, 200);
    return () => clearTimeout(id);
  }, []);
}
