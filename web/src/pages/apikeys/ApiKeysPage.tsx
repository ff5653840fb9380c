import { Badge, Button, Card, Group, Stack, Table, Text, Title, Tooltip } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { Plus } from 'lucide-react';
import { lazy, Suspense, useState } from 'react';
import { useTranslation } from 'react-i18next';

import type { ApiKey, ApiKeyWithSecret } from '../../api/types';
import { ErrorAlert } from '../../components/ErrorAlert';
import { notifySuccess } from '../../components/notify';
import { Pager } from '../../components/Pager';
import { formatDate, formatRelative } from '../../lib/format';
import { McpPanel } from './McpPanel';
import { KEYS_PAGE, useApiKeys, useRevokeApiKey } from './queries';

import { addArea } from '../../i18n';
import strings from '../../i18n/locales/en_US/apiKeys.json';
import { openConfirm } from '../../components/confirm';

// This area's strings come with this chunk (and, in Chinese, before the page renders).
await addArea('apiKeys', strings);

// The create dialog is its own chunk, fetched when first opened.
const CreateKeyModal = lazy(() => import('./CreateKey').then((m) => ({ default: m.CreateKeyModal })));
const CreatedKeyModal = lazy(() => import('./CreateKey').then((m) => ({ default: m.CreatedKeyModal })));

export function keyState(key: ApiKey, now = Date.now()): 'active' | 'revoked' | 'expired' {
  if (key.status === 'revoked') return 'revoked';
  if (key.expires_at && new Date(key.expires_at).getTime() <= now) return 'expired';
  return 'active';
}

const STATE_COLOR = { active: 'teal', revoked: 'red', expired: 'gray' } as const;

export default function ApiKeysPage() {
  const { t, i18n } = useTranslation();
  const [page, setPage] = useState(1);
  const list = useApiKeys(page);
  const revoke = useRevokeApiKey();
  const [creating, create] = useDisclosure();
  const [created, setCreated] = useState<ApiKeyWithSecret | null>(null);

  const confirmRevoke = (key: ApiKey) =>
    openConfirm({
      title: t('apiKeys.revokeTitle', { name: key.name }),
      children: <Text size="sm">{t('apiKeys.revokeBody')}</Text>,
      labels: { confirm: t('apiKeys.revoke'), cancel: t('common.cancel') },
      confirmProps: { color: 'red' },
      onConfirm: () => revoke.mutate(key.id, { onSuccess: () => notifySuccess(t('apiKeys.revoked', { name: key.name })) }),
    });

  return (
    <Stack>
      <Group justify="space-between" align="flex-end">
        <div>
          <Title order={1} size="h2">
            {t('apiKeys.title')}
          </Title>
          <Text size="sm" c="dimmed">
            {t('apiKeys.subtitle')}
          </Text>
        </div>
        <Button leftSection={<Plus size={16} />} onClick={create.open}>
          {t('apiKeys.create')}
        </Button>
      </Group>
      {list.isError && <ErrorAlert error={list.error} onRetry={() => void list.refetch()} />}
      <Card withBorder padding={0}>
        <Table.ScrollContainer minWidth={720}>
          <Table verticalSpacing="xs" horizontalSpacing="md">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('apiKeys.name')}</Table.Th>
                <Table.Th>{t('apiKeys.scopes')}</Table.Th>
                <Table.Th>{t('apiKeys.status')}</Table.Th>
                <Table.Th>{t('apiKeys.expires')}</Table.Th>
                <Table.Th>{t('apiKeys.lastUsed')}</Table.Th>
                <Table.Th>
                  <span className="visually-hidden">{t('common.actions')}</span>
                </Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {list.data?.keys.length === 0 && (
                <Table.Tr>
                  <Table.Td colSpan={6}>
                    <Text size="sm" c="dimmed" ta="center" p="md">
                      {t('apiKeys.empty')}
                    </Text>
                  </Table.Td>
                </Table.Tr>
              )}
              {list.data?.keys.map((key) => {
                const state = keyState(key);
                return (
                  <Table.Tr key={key.id} data-testid={`apikey-${key.name}`}>
                    <Table.Td>
                      <Text size="sm" fw={500}>
                        {key.name}
                      </Text>
                      {key.description && (
                        <Text size="xs" c="dimmed">
                          {key.description}
                        </Text>
                      )}
                    </Table.Td>
                    <Table.Td>
                      <Tooltip label={key.scopes.join(', ')} multiline w={280} disabled={key.scopes.length === 0}>
                        <Badge variant="light" color="gray" tabIndex={0}>
                          {t('apiKeys.scopeCount', { count: key.scopes.length })}
                        </Badge>
                      </Tooltip>
                    </Table.Td>
                    <Table.Td>
                      <Badge color={STATE_COLOR[state]} variant="light" data-testid="apikey-state">
                        {t(`apiKeys.state.${state}`)}
                      </Badge>
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm">{key.expires_at ? formatDate(key.expires_at, i18n.language) : t('apiKeys.never')}</Text>
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm" data-testid="apikey-last-used">
                        {key.last_used_at ? formatRelative(key.last_used_at, i18n.language) : t('apiKeys.neverUsed')}
                      </Text>
                    </Table.Td>
                    <Table.Td>
                      {state !== 'revoked' && (
                        <Button size="compact-xs" variant="subtle" color="red" onClick={() => confirmRevoke(key)} aria-label={t('apiKeys.revokeNamed', { name: key.name })}>
                          {t('apiKeys.revoke')}
                        </Button>
                      )}
                    </Table.Td>
                  </Table.Tr>
                );
              })}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      </Card>
      {list.data && <Pager total={list.data.total} pageSize={KEYS_PAGE} page={page} onChange={setPage} />}
      <McpPanel keys={(list.data?.keys ?? []).filter((k) => keyState(k) === 'active')} />
      <Suspense fallback={null}>
        {creating && (
          <CreateKeyModal
            onClose={create.close}
            onCreated={(key) => {
              create.close();
              setCreated(key);
            }}
          />
        )}
        {created && <CreatedKeyModal created={created} onClose={() => setCreated(null)} />}
      </Suspense>
    </Stack>
  );
}
