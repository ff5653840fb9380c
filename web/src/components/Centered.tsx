import { Center, Loader, Stack } from '@mantine/core';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

export function FullPageLoader() {
  const { t } = useTranslation();
  return (
    <Center h="100dvh">
      <Loader aria-label={t('common.loading')} />
    </Center>
  );
}

export function CenteredCard({ children }: { children: ReactNode }) {
  return (
    <Center mih="100dvh" p="md">
      <Stack w="100%" maw={420}>
        {children}
      </Stack>
    </Center>
  );
}
