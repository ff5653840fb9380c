// The bots of the Workspace: state (enabled, last error), adapter, routes; create one.
import { Anchor, Badge, Button, Card, Group, Modal, Skeleton, Stack, Switch, Table, Text, Title, Tooltip } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { Plus } from 'lucide-react';
import { lazy, Suspense, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';

import type { ErrorRow } from '../../api/types';
import { useSession } from '../../app/session-context';
import { ErrorAlert } from '../../components/ErrorAlert';
import { Pager } from '../../components/Pager';
import { formatRelative } from '../../lib/format';
import { useAllPipelines } from '../pipelines/queries';
import { AdapterIcon } from './AdapterIcon';
import { BOTS_PAGE, useAdapters, useBotErrors, useBots, useUpdateBot } from './queries';

import { addArea } from '../../i18n';
import strings from '../../i18n/locales/en_US/bots.json';

// This area's strings come with this chunk (and, in Chinese, before the page renders).
await addArea('bots', strings);

// The form (the adapter's inputs) is its own chunk, fetched when the dialog opens.
const BotForm = lazy(() => import('./BotForm').then((m) => ({ default: m.BotForm })));

export default function BotsPage() {
  const { t, i18n } = useTranslation();
  const { can } = useSession();
  const navigate = useNavigate();
  const [page, setPage] = useState(1);
  const bots = useBots(page);
  const adapters = useAdapters();
  const pipelines = useAllPipelines();
  const list = bots.data?.bots ?? [];
  const errors = useBotErrors(list.map((b) => b.uuid));
  const toggle = useUpdateBot(false);
  const [creating, { open, close }] = useDisclosure();
  const lastError = (uuid: string): ErrorRow | undefined => errors.data?.errors.find((e) => e.bot_id === uuid);
  const pipelineName = (uuid: string) => pipelines.data?.find((p) => p.uuid === uuid)?.name;

  return (
    <Stack>
      <Group justify="space-between" align="flex-end">
        <div>
          <Title order={1} size="h2">
            {t('bots.title')}
          </Title>
          <Text size="sm" c="dimmed">
            {t('bots.subtitle')}
          </Text>
        </div>
        {can('resource.manage') && (
          <Button leftSection={<Plus size={16} />} onClick={open} disabled={!adapters.data}>
            {t('bots.add')}
          </Button>
        )}
      </Group>
      {adapters.isError && <ErrorAlert error={adapters.error} onRetry={() => void adapters.refetch()} />}
      {bots.isError && <ErrorAlert error={bots.error} onRetry={() => void bots.refetch()} />}
      {bots.isPending && <Skeleton h={160} />}
      {bots.data?.bots.length === 0 && (
        <Card withBorder padding="xl">
          <Stack align="center" gap="xs">
            <Text fw={500}>{t('bots.empty')}</Text>
            <Text size="sm" c="dimmed" ta="center">
              {t('bots.emptyHint')}
            </Text>
          </Stack>
        </Card>
      )}
      {list.length > 0 && (
        <Card withBorder padding={0}>
          <Table.ScrollContainer minWidth={720}>
            <Table verticalSpacing="sm" highlightOnHover>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{t('bots.name')}</Table.Th>
                  <Table.Th>{t('bots.state')}</Table.Th>
                  <Table.Th>{t('bots.routes')}</Table.Th>
                  <Table.Th>{t('bots.lastError')}</Table.Th>
                  <Table.Th>{t('bots.enable')}</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {list.map((bot) => {
                  const adapter = adapters.data?.adapters.find((a) => a.name === bot.adapter);
                  const error = lastError(bot.uuid);
                  const targets = [...new Set(bot.event_bindings.filter((r) => r.target_type === 'pipeline').map((r) => pipelineName(r.target_uuid) ?? r.target_uuid))];
                  return (
                    <Table.Tr key={bot.uuid} data-testid={`bot-${bot.name}`}>
                      <Table.Td>
                        <Group gap="sm" wrap="nowrap">
                          <AdapterIcon adapter={adapter} size={28} />
                          <div>
                            <Anchor component={Link} to={`/platform/bots/${bot.uuid}`} fw={500}>
                              {bot.name}
                            </Anchor>
                            <Text size="xs" c="dimmed">
                              {bot.adapter}
                            </Text>
                          </div>
                        </Group>
                      </Table.Td>
                      <Table.Td>
                        <Badge color={bot.enable ? 'teal' : 'gray'} variant="light">
                          {bot.enable ? t('bots.enabled') : t('bots.disabledState')}
                        </Badge>
                      </Table.Td>
                      <Table.Td>
                        <Text size="sm">{t('bots.routeCount', { count: bot.event_bindings.length })}</Text>
                        <Text size="xs" c="dimmed" lineClamp={1}>
                          {targets.join(', ')}
                        </Text>
                      </Table.Td>
                      <Table.Td>
                        {error ? (
                          <Tooltip label={error.error_message} multiline w={320}>
                            <Text size="sm" c="red" lineClamp={1}>
                              {error.error_type} · {formatRelative(error.timestamp, i18n.language)}
                            </Text>
                          </Tooltip>
                        ) : (
                          <Text size="sm" c="dimmed">
                            {t('bots.noErrors')}
                          </Text>
                        )}
                      </Table.Td>
                      <Table.Td>
                        <Switch
                          aria-label={t('bots.enableNamed', { name: bot.name })}
                          checked={bot.enable}
                          disabled={!can('resource.manage') || toggle.isPending}
                          onChange={(e) => toggle.mutate({ uuid: bot.uuid, body: { enable: e.currentTarget.checked } })}
                        />
                      </Table.Td>
                    </Table.Tr>
                  );
                })}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        </Card>
      )}
      {bots.data && <Pager total={bots.data.total} pageSize={BOTS_PAGE} page={page} onChange={setPage} />}
      <Modal opened={creating} onClose={close} size="lg" title={t('bots.add')}>
        {adapters.data && creating && (
          <Suspense fallback={null}>
          <BotForm
            adapters={adapters.data.adapters}
            bot={null}
            onCancel={close}
            onDone={(uuid) => {
              close();
              void navigate(`/platform/bots/${uuid}`);
            }}
          />
          </Suspense>
        )}
      </Modal>
    </Stack>
  );
}
