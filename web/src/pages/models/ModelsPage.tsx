import { Button, Card, Group, Skeleton, Stack, Text, Title } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { Plus } from 'lucide-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';

import { useSession } from '../../app/session-context';
import { ErrorAlert } from '../../components/ErrorAlert';
import { Pager } from '../../components/Pager';
import { Dialog, ProviderFormModal, usePrefetchDialogs } from './dialogs';
import { ProviderCard } from './ProviderCard';
import { PROVIDERS_PAGE, useProviders, useRequesters, useStarred } from './queries';
import { StarredSummary } from './StarredSummary';

import { addArea } from '../../i18n';
import strings from '../../i18n/locales/en_US/models.json';

// This area's strings come with this chunk (and, in Chinese, before the page renders).
await addArea('models', strings);

export default function ModelsPage() {
  const { t } = useTranslation();
  const { can } = useSession();
  const [page, setPage] = useState(1);
  const providers = useProviders(page);
  const requesters = useRequesters();
  const starred = useStarred();
  const [adding, { open, close }] = useDisclosure();
  usePrefetchDialogs();

  return (
    <Stack>
      <Group justify="space-between" align="flex-end">
        <div>
          <Title order={1} size="h2">
            {t('models.title')}
          </Title>
          <Text size="sm" c="dimmed">
            {t('models.subtitle')}
          </Text>
        </div>
        {can('provider_secret.manage') && (
          <Button leftSection={<Plus size={16} />} onClick={open} disabled={!requesters.data}>
            {t('providers.add')}
          </Button>
        )}
      </Group>
      <StarredSummary uuid={starred.data?.uuid ?? null} />
      {requesters.isError && <ErrorAlert error={requesters.error} onRetry={() => void requesters.refetch()} />}
      {providers.isError && <ErrorAlert error={providers.error} onRetry={() => void providers.refetch()} />}
      {providers.isPending && <Skeleton h={160} />}
      {providers.data?.providers.length === 0 && (
        <Card withBorder padding="xl">
          <Stack align="center" gap="xs">
            <Text fw={500}>{t('providers.empty')}</Text>
            <Text size="sm" c="dimmed" ta="center">
              {t('providers.emptyHint')}
            </Text>
          </Stack>
        </Card>
      )}
      {providers.data?.providers.map((p) => (
        <ProviderCard key={p.uuid} provider={p} requesters={requesters.data?.requesters ?? []} starred={starred.data?.uuid ?? null} />
      ))}
      {providers.data && <Pager total={providers.data.total} pageSize={PROVIDERS_PAGE} page={page} onChange={setPage} />}
      {adding && requesters.data && (
        <Dialog>
          <ProviderFormModal opened onClose={close} requesters={requesters.data.requesters} provider={null} />
        </Dialog>
      )}
    </Stack>
  );
}
