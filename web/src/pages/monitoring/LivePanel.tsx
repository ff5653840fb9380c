// What runs now, on the SSE feed: updates without reload, reconnects after a drop.
import { Badge, Card, Group, Stack, Table, Text, Title } from '@mantine/core';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

import { api } from '../../api/client';
import type { Snapshot } from '../../api/types';
import { follow } from './sse';
import { StatusBadge } from './StatusBadge';

export function LivePanel() {
  const { t, i18n } = useTranslation();
  const [snapshot, setSnapshot] = useState<Snapshot | null>(null);
  const [state, setState] = useState<'connecting' | 'live' | 'retrying'>('connecting');

  useEffect(() => {
    const controller = new AbortController();
    void follow(
      async (signal) => (await api.GET('/api/v1/monitoring/in-flight/stream', { parseAs: 'stream', signal })).response,
      { onSnapshot: setSnapshot, onState: setState },
      controller.signal,
    );
    return () => controller.abort();
  }, []);

  const items = snapshot?.items ?? [];
  const time = new Intl.DateTimeFormat(i18n.language === 'zh_Hans' ? 'zh-CN' : 'en-US', { timeStyle: 'medium' });
  return (
    <Card withBorder padding="md" component="section" aria-labelledby="live-title" data-testid="live-panel">
      <Group justify="space-between" mb="xs">
        <Group gap="xs">
          <Title order={2} size="h5" id="live-title">
            {t('monitoring.live')}
          </Title>
          <Badge variant="dot" color={state === 'live' ? 'teal' : state === 'retrying' ? 'orange' : 'gray'} data-testid="live-state">
            {t(`monitoring.liveState.${state}`)}
          </Badge>
        </Group>
        <Text size="sm" data-testid="live-active">
          {t('monitoring.activeNow', { count: snapshot?.active_total ?? 0 })}
        </Text>
      </Group>
      {items.length === 0 ? (
        <Text size="sm" c="dimmed">
          {t('monitoring.liveEmpty')}
        </Text>
      ) : (
        <Table.ScrollContainer minWidth={560}>
          <Table>
            <Table.Tbody>
              {items.map((e) => (
                <Table.Tr key={e.id} data-testid="live-row">
                  <Table.Td>
                    <StatusBadge status={e.status_group} />
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm" component={Link} to={`/monitoring/executions/${e.source}/${encodeURIComponent(e.id)}`} c="blue">
                      {e.input_preview || e.id}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <Text size="xs">{e.bot_name}</Text>
                    <Text size="xs" c="dimmed">
                      {e.pipeline_name}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <Text size="xs" c="dimmed">
                      {e.progress_event ?? ''}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <Text size="xs">{time.format(new Date(e.started_at_ms))}</Text>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {snapshot?.truncated && (
        <Stack mt="xs">
          <Text size="xs" c="dimmed">
            {t('monitoring.liveTruncated')}
          </Text>
        </Stack>
      )}
    </Card>
  );
}
