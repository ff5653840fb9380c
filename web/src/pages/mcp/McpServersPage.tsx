// The Workspace's MCP servers (their sessions on this replica, polled while one connects) and
// the tools they offer together, as an agent without a pipeline's bindings would see them.
import { Alert, Badge, Button, Card, Group, Skeleton, Stack, Switch, Table, Tabs, Text, Title, Tooltip } from '@mantine/core';
import { Info, Plus } from 'lucide-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';

import { useSession } from '../../app/session-context';
import { useSystemInfo } from '../../app/queries';
import { ErrorAlert } from '../../components/ErrorAlert';
import { errorText, notifySuccess } from '../../components/notify';
import { Dialog, ServerDetailModal, ServerFormModal, usePrefetchDialogs } from './dialogs';
import { type McpServer, type RuntimeInfo, statusOf } from './model';
import { useDeleteMcpServer, useMcpServers, useTestMcpServer, useToggleMcpServer } from './queries';
import { StatusBadge, TestOutcome } from './StatusBadge';
import { ToolsPanel } from './ToolsPanel';

import { addArea } from '../../i18n';
import strings from '../../i18n/locales/en_US/mcpServers.json';
import { openConfirm } from '../../components/confirm';

// This area's strings come with this chunk (and, in Chinese, before the page renders).
await addArea('mcpServers', strings);

type Editing = { server: McpServer | null } | null;

export default function McpServersPage() {
  const { t } = useTranslation();
  const { can } = useSession();
  const manage = can('resource.manage');
  const system = useSystemInfo();
  const list = useMcpServers();
  const [editing, setEditing] = useState<Editing>(null);
  const [detail, setDetail] = useState<string | null>(null);
  const [tab, setTab] = useState<string | null>('servers');
  usePrefetchDialogs();
  const servers = list.data?.servers;
  const stdioEnabled = system.data?.mcp_stdio_enabled ?? false;

  return (
    <Stack>
      <Group justify="space-between" align="flex-end">
        <div>
          <Title order={1} size="h2">
            {t('mcpServers.title')}
          </Title>
          <Text size="sm" c="dimmed">
            {t('mcpServers.subtitle')}
          </Text>
        </div>
        {manage && (
          <Button leftSection={<Plus size={16} />} onClick={() => setEditing({ server: null })}>
            {t('mcpServers.add')}
          </Button>
        )}
      </Group>
      {system.data && !stdioEnabled && (
        <Alert color="gray" variant="light" icon={<Info size={18} />} data-testid="stdio-disabled">
          {t('mcpServers.stdioDisabled')}
        </Alert>
      )}
      <Tabs value={tab} onChange={setTab} keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="servers">{t('mcpServers.tabServers')}</Tabs.Tab>
          <Tabs.Tab value="tools">{t('mcpServers.tabTools')}</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="servers" pt="md">
          <Stack>
            {list.isError && <ErrorAlert error={list.error} onRetry={() => void list.refetch()} />}
            {list.isPending && <Skeleton h={120} />}
            {servers?.length === 0 && (
              <Card withBorder padding="xl" data-testid="mcp-empty">
                <Stack align="center" gap="xs">
                  <Text fw={500}>{t('mcpServers.empty')}</Text>
                  <Text size="sm" c="dimmed" ta="center">
                    {t('mcpServers.emptyHint')}
                  </Text>
                </Stack>
              </Card>
            )}
            {servers && servers.length > 0 && (
              <Card withBorder padding={0}>
                <Table.ScrollContainer minWidth={760}>
                  <Table verticalSpacing="sm" horizontalSpacing="md">
                    <Table.Thead>
                      <Table.Tr>
                        <Table.Th>{t('mcpServers.name')}</Table.Th>
                        <Table.Th>{t('mcpServers.enabled')}</Table.Th>
                        <Table.Th>{t('mcpServers.statusLabel')}</Table.Th>
                        <Table.Th>{t('mcpServers.tools')}</Table.Th>
                        <Table.Th>
                          <span className="visually-hidden">{t('common.actions')}</span>
                        </Table.Th>
                      </Table.Tr>
                    </Table.Thead>
                    <Table.Tbody>
                      {servers.map((s) => (
                        <ServerRow key={s.uuid} server={s} manage={manage} onDetail={() => setDetail(s.name)} onEdit={() => setEditing({ server: s })} />
                      ))}
                    </Table.Tbody>
                  </Table>
                </Table.ScrollContainer>
              </Card>
            )}
          </Stack>
        </Tabs.Panel>
        <Tabs.Panel value="tools" pt="md">
          <ToolsPanel servers={servers ?? []} />
        </Tabs.Panel>
      </Tabs>
      {editing && (
        <Dialog>
          <ServerFormModal server={editing.server} stdioEnabled={stdioEnabled} onClose={() => setEditing(null)} />
        </Dialog>
      )}
      {detail !== null && (
        <Dialog>
          <ServerDetailModal name={detail} onClose={() => setDetail(null)} />
        </Dialog>
      )}
    </Stack>
  );
}

function ServerRow({ server, manage, onDetail, onEdit }: { server: McpServer; manage: boolean; onDetail: () => void; onEdit: () => void }) {
  const { t } = useTranslation();
  const toggle = useToggleMcpServer();
  const test = useTestMcpServer();
  const remove = useDeleteMcpServer();
  const [result, setResult] = useState<RuntimeInfo | null>(null);
  const status = statusOf(server);
  const name = server.name;

  const runTest = () => {
    setResult(null);
    test.mutate({ name }, { onSuccess: (done) => setResult(done.runtime_info) });
  };

  const confirmDelete = () =>
    openConfirm({
      title: t('mcpServers.deleteTitle', { name }),
      children: <Text size="sm">{t('mcpServers.deleteBody', { name })}</Text>,
      labels: { confirm: t('common.delete'), cancel: t('common.cancel') },
      confirmProps: { color: 'red', 'data-testid': 'confirm-delete' } as Record<string, string>,
      onConfirm: () => remove.mutate(name, { onSuccess: () => notifySuccess(t('mcpServers.deleted', { name })) }),
    });

  return (
    <Table.Tr data-testid={`mcp-server-${name}`}>
      <Table.Td>
        <Group gap={6} wrap="nowrap">
          <Text size="sm" fw={500}>
            {name}
          </Text>
          <Tooltip label={t(`mcpServers.mode.${server.mode}`, { defaultValue: server.mode })}>
            <Badge variant="outline" color="gray" size="sm" tt="none" tabIndex={0}>
              {server.mode}
            </Badge>
          </Tooltip>
        </Group>
        {result && (
          <div style={{ marginTop: 6 }}>
            <TestOutcome info={result} />
          </div>
        )}
        {test.isError && (
          <Text size="xs" c="red.8" mt={4} data-testid="test-result">
            {errorText(test.error)}
          </Text>
        )}
      </Table.Td>
      <Table.Td>
        <Switch
          checked={server.enable}
          disabled={!manage || toggle.isPending}
          onChange={(e) => toggle.mutate({ name, enable: e.currentTarget.checked })}
          aria-label={t('mcpServers.enableNamed', { name })}
        />
      </Table.Td>
      <Table.Td>
        <StatusBadge server={server} />
      </Table.Td>
      <Table.Td>
        <Text size="sm" data-testid="mcp-tool-count">
          {status === 'connected' ? (server.runtime_info?.tool_count ?? 0) : '—'}
        </Text>
      </Table.Td>
      <Table.Td>
        <Group gap={4} justify="flex-end" wrap="nowrap">
          <Button size="compact-xs" variant="subtle" onClick={onDetail} aria-label={t('mcpServers.detailNamed', { name })}>
            {t('mcpServers.detail')}
          </Button>
          {manage && (
            <>
              <Button size="compact-xs" variant="subtle" onClick={runTest} loading={test.isPending} aria-label={t('mcpServers.testNamed', { name })}>
                {t('mcpServers.test')}
              </Button>
              <Button size="compact-xs" variant="subtle" onClick={onEdit} aria-label={t('mcpServers.editNamed', { name })}>
                {t('common.edit')}
              </Button>
              <Button size="compact-xs" variant="subtle" color="red" onClick={confirmDelete} aria-label={t('mcpServers.deleteNamed', { name })}>
                {t('common.delete')}
              </Button>
            </>
          )}
        </Group>
      </Table.Td>
    </Table.Tr>
  );
}
