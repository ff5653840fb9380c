// One server: its connection, the tools it offers (each tool's parameter schema folded away)
// and its resources (which only a connected server can list).
import { Accordion, Alert, Code, Group, Loader, Modal, Stack, Table, Tabs, Text } from '@mantine/core';
import { Info } from 'lucide-react';
import { useTranslation } from 'react-i18next';

import { ApiError } from '../../api/errors';
import { ErrorAlert } from '../../components/ErrorAlert';
import { type McpServer, statusOf, type ToolInfo } from './model';
import { useMcpResources, useMcpServer } from './queries';
import { StatusBadge } from './StatusBadge';

export function ServerDetailModal({ name, onClose }: { name: string; onClose: () => void }) {
  const { t } = useTranslation();
  const detail = useMcpServer(name);
  return (
    <Modal opened onClose={onClose} size="xl" title={t('mcpServers.detailTitle', { name })}>
      {detail.isPending && <Loader size="sm" aria-label={t('common.loading')} />}
      {detail.isError && <ErrorAlert error={detail.error} onRetry={() => void detail.refetch()} />}
      {detail.data && <Detail server={detail.data.server} />}
    </Modal>
  );
}

function endpointOf(server: McpServer): string {
  const extra = server.extra_args as Record<string, unknown>;
  if (server.mode === 'stdio') {
    const args = Array.isArray(extra.args) ? extra.args.map(String) : [];
    return [typeof extra.command === 'string' ? extra.command : '', ...args].join(' ');
  }
  return typeof extra.url === 'string' ? extra.url : '';
}

function Detail({ server }: { server: McpServer }) {
  const { t } = useTranslation();
  const tools = server.runtime_info?.tools ?? [];
  const status = statusOf(server);
  return (
    <Stack>
      <Group gap="lg" align="flex-start">
        <StatusBadge server={server} />
        <div>
          <Text size="xs" c="dimmed">
            {t(`mcpServers.mode.${server.mode}`, { defaultValue: server.mode })}
          </Text>
          <Code style={{ wordBreak: 'break-all' }}>{endpointOf(server)}</Code>
        </div>
      </Group>
      <Tabs defaultValue="tools" keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="tools">{t('mcpServers.toolsTab', { count: tools.length })}</Tabs.Tab>
          <Tabs.Tab value="resources">{t('mcpServers.resourcesTab')}</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="tools" pt="sm">
          {status !== 'connected' ? (
            <Text size="sm" c="dimmed">
              {t('mcpServers.notConnected')}
            </Text>
          ) : tools.length === 0 ? (
            <Text size="sm" c="dimmed">
              {t('mcpServers.noServerTools')}
            </Text>
          ) : (
            <ToolList tools={tools} />
          )}
        </Tabs.Panel>
        <Tabs.Panel value="resources" pt="sm">
          <Resources name={server.name} status={status} />
        </Tabs.Panel>
      </Tabs>
    </Stack>
  );
}

function ToolList({ tools }: { tools: ToolInfo[] }) {
  const { t } = useTranslation();
  return (
    <Accordion variant="separated" multiple data-testid="server-tools">
      {tools.map((tool) => (
        <Accordion.Item key={tool.name} value={tool.name} data-testid={`tool-${tool.name}`}>
          <Accordion.Control>
            <Text size="sm" ff="monospace" fw={500}>
              {tool.name}
            </Text>
            {tool.description && (
              <Text size="xs" c="dimmed">
                {tool.description}
              </Text>
            )}
          </Accordion.Control>
          <Accordion.Panel>
            <Text size="xs" fw={500} mb={4}>
              {t('mcpServers.parameters')}
            </Text>
            <Code block>{JSON.stringify(tool.parameters, null, 2)}</Code>
          </Accordion.Panel>
        </Accordion.Item>
      ))}
    </Accordion>
  );
}

const text = (v: unknown) => (typeof v === 'string' ? v : '');

function Resources({ name, status }: { name: string; status: string }) {
  const { t } = useTranslation();
  const resources = useMcpResources(name, status);
  if (resources.isPending) return <Loader size="sm" aria-label={t('common.loading')} />;
  if (resources.isError) {
    if (resources.error instanceof ApiError && resources.error.code === 'conflict') {
      return (
        <Alert color="gray" icon={<Info size={18} />} data-testid="resources-not-connected">
          <Text size="sm">{t('mcpServers.resourcesNotConnected')}</Text>
          <Text size="xs" c="dimmed">
            {resources.error.message}
          </Text>
        </Alert>
      );
    }
    return <ErrorAlert error={resources.error} onRetry={() => void resources.refetch()} />;
  }
  const items = resources.data.resources as Record<string, unknown>[];
  const templates = resources.data.resource_templates as Record<string, unknown>[];
  const rows = [
    ...items.map((r) => ({ kind: 'resource', uri: text(r.uri), name: text(r.name), description: text(r.description), mime: text(r.mimeType) })),
    ...templates.map((r) => ({ kind: 'template', uri: text(r.uriTemplate), name: text(r.name), description: text(r.description), mime: text(r.mimeType) })),
  ];
  if (rows.length === 0) {
    return (
      <Text size="sm" c="dimmed">
        {t('mcpServers.noResources')}
      </Text>
    );
  }
  return (
    <Table.ScrollContainer minWidth={560}>
      <Table verticalSpacing="xs" data-testid="server-resources">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{t('mcpServers.resourceUri')}</Table.Th>
            <Table.Th>{t('mcpServers.resourceName')}</Table.Th>
            <Table.Th>{t('mcpServers.resourceType')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((r) => (
            <Table.Tr key={`${r.kind}:${r.uri}`}>
              <Table.Td>
                <Text size="sm" ff="monospace">
                  {r.uri}
                </Text>
                {r.kind === 'template' && (
                  <Text size="xs" c="dimmed">
                    {t('mcpServers.template')}
                  </Text>
                )}
              </Table.Td>
              <Table.Td>
                <Text size="sm">{r.name}</Text>
                {r.description && (
                  <Text size="xs" c="dimmed">
                    {r.description}
                  </Text>
                )}
              </Table.Td>
              <Table.Td>
                <Text size="sm">{r.mime || '—'}</Text>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
