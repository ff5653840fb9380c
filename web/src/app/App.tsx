import { MantineProvider, mergeThemeOverrides } from '@mantine/core';
import { type QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { lazy, Suspense, useMemo } from 'react';
import { useTranslation } from 'react-i18next';

import { AppRoutes } from './router';
import { cssVariablesResolver, theme } from './theme';

// The notifications container is not needed for a first render (see components/notify).
const Notifications = lazy(() => import('@mantine/notifications').then((m) => ({ default: m.Notifications })));
// Nor the confirm dialogs' host (pages open dialogs through components/confirm, which waits for
// it): it and the Modal code are fetched right after the first render.
const ModalsHost = lazy(() => import('./ModalsHost'));

export function App({ queryClient }: { queryClient: QueryClient }) {
  const { t } = useTranslation();
  // Every dialog's and notification's close button is named in the UI language.
  const close = t('common.close');
  const themed = useMemo(
    () =>
      mergeThemeOverrides(theme, {
        components: {
          Modal: { defaultProps: { closeButtonProps: { 'aria-label': close } } },
          Notification: { defaultProps: { closeButtonProps: { 'aria-label': close } } },
        },
      }),
    [close],
  );
  return (
    <MantineProvider theme={themed} defaultColorScheme="auto" cssVariablesResolver={cssVariablesResolver}>
      <QueryClientProvider client={queryClient}>
        <Suspense fallback={null}>
          <Notifications position="top-right" />
          <ModalsHost labels={{ confirm: t('common.confirm'), cancel: t('common.cancel') }} />
        </Suspense>
        <AppRoutes />
      </QueryClientProvider>
    </MantineProvider>
  );
}
