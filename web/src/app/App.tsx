import { MantineProvider, mergeThemeOverrides } from '@mantine/core';
import { ModalsProvider } from '@mantine/modals';
import { Notifications } from '@mantine/notifications';
import { type QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { RouterProvider } from 'react-router';

import { createRouter } from './router';
import { cssVariablesResolver, theme } from './theme';

export function App({ queryClient }: { queryClient: QueryClient }) {
  const [router] = useState(createRouter);
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
        <ModalsProvider labels={{ confirm: t('common.confirm'), cancel: t('common.cancel') }}>
          <Notifications position="top-right" />
          <RouterProvider router={router} />
        </ModalsProvider>
      </QueryClientProvider>
    </MantineProvider>
  );
}
