import { Badge, Group, List, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';

import { type McpServer, type RuntimeInfo, STATUS_COLOR, statusOf } from './model';

/** A server's connection: disabled, connecting (with the attempt), connected (over which
 *  transport) or the error, in words. */
export function StatusBadge({ server }: { server: Pick<McpServer, 'enable' | 'runtime_info'> }) {
  const { t } = useTranslation();
  const status = statusOf(server);
  const info = server.runtime_info;
  return (
    <Stack gap={2} align="flex-start">
      <Badge color={STATUS_COLOR[status]} variant="light" data-testid="mcp-status">
        {t(`mcpServers.status.${status}`)}
      </Badge>
      {status === 'connecting' && info && info.retry_count > 0 && (
        <Text size="xs" c="dimmed">
          {t('mcpServers.attempt', { n: info.retry_count + 1 })}
        </Text>
      )}
      {status === 'connected' && info?.transport && (
        <Text size="xs" c="dimmed">
          {info.transport}
        </Text>
      )}
      {status === 'error' && info?.error_message && (
        <Text size="xs" c="red.8" data-testid="mcp-error" style={{ wordBreak: 'break-word' }}>
          {info.error_message}
        </Text>
      )}
    </Stack>
  );
}

/** What a test found: connected with the tools, or why not. */
export function TestOutcome({ info, showTools = false }: { info: RuntimeInfo; showTools?: boolean }) {
  const { t } = useTranslation();
  if (info.status === 'connected') {
    return (
      <Stack gap={4} data-testid="test-result">
        <Group gap={6}>
          <Badge color="teal" variant="light">
            {t('mcpServers.status.connected')}
          </Badge>
          <Text size="sm">{t('mcpServers.toolsFound', { count: info.tool_count })}</Text>
        </Group>
        {showTools && info.tools.length > 0 && (
          <List size="sm" spacing={2}>
            {info.tools.map((tool) => (
              <List.Item key={tool.name}>
                <Text span ff="monospace" size="sm">
                  {tool.name}
                </Text>
                {tool.description && (
                  <Text span size="xs" c="dimmed">
                    {' '}
                    — {tool.description}
                  </Text>
                )}
              </List.Item>
            ))}
          </List>
        )}
      </Stack>
    );
  }
  return (
    <Stack gap={4} data-testid="test-result">
      <Group gap={6}>
        <Badge color="red" variant="light">
          {t('mcpServers.status.error')}
        </Badge>
        {info.error_code && (
          <Text size="xs" ff="monospace" c="dimmed">
            {info.error_code}
          </Text>
        )}
      </Group>
      <Text size="sm" c="red.8" style={{ wordBreak: 'break-word' }}>
        {info.error_message ?? t('errors.unknown')}
      </Text>
    </Stack>
  );
}
