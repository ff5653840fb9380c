import { Badge, Card, Skeleton, Stack, Table, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';

import { ErrorAlert } from '../../components/ErrorAlert';
import type { McpServer } from './model';
import { useOfferedTools } from './queries';

/** Every tool the enabled, connected servers offer, under the names the model sees (a name two
 *  servers share is offered as `<server>__<name>`). */
export function ToolsPanel({ servers }: { servers: McpServer[] }) {
  const { t } = useTranslation();
  const signature = servers.map((s) => `${s.uuid}:${s.enable ? 1 : 0}:${s.runtime_info?.status ?? '-'}:${s.runtime_info?.tool_count ?? 0}`).join(',');
  const tools = useOfferedTools(signature);
  return (
    <Stack>
      <Text size="sm" c="dimmed">
        {t('mcpServers.toolsHint')}
      </Text>
      {tools.isError && <ErrorAlert error={tools.error} onRetry={() => void tools.refetch()} />}
      {tools.isPending && <Skeleton h={120} />}
      {tools.data && (
        <Card withBorder padding={0}>
          <Table.ScrollContainer minWidth={640}>
            <Table verticalSpacing="xs" horizontalSpacing="md" data-testid="offered-tools">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{t('mcpServers.toolName')}</Table.Th>
                  <Table.Th>{t('mcpServers.toolSource')}</Table.Th>
                  <Table.Th>{t('mcpServers.toolDescription')}</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {tools.data.tools.length === 0 && (
                  <Table.Tr>
                    <Table.Td colSpan={3}>
                      <Text size="sm" c="dimmed" ta="center" p="md">
                        {t('mcpServers.noTools')}
                      </Text>
                    </Table.Td>
                  </Table.Tr>
                )}
                {tools.data.tools.map((tool) => (
                  <Table.Tr key={`${tool.source_id}/${tool.name}`} data-testid={`offered-${tool.name}`}>
                    <Table.Td>
                      <Text size="sm" ff="monospace">
                        {tool.name}
                      </Text>
                      {tool.original_name !== tool.name && (
                        <Text size="xs" c="dimmed">
                          {t('mcpServers.originalName', { name: tool.original_name })}
                        </Text>
                      )}
                    </Table.Td>
                    <Table.Td>
                      <Badge variant="light" color="gray">
                        {tool.source_name}
                      </Badge>
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm">{tool.description}</Text>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        </Card>
      )}
    </Stack>
  );
}
