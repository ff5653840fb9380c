// What the router did lately: each route's last outcome, events no route matched, and stale
// routes (pointing at a pipeline that is gone, or no longer stored).
import { Badge, Card, Group, Skeleton, Stack, Table, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';

import type { RouteStatus } from '../../api/types';
import { ErrorAlert } from '../../components/ErrorAlert';
import { formatDate } from '../../lib/format';
import { useRouteStatus } from './queries';

export function RouteStatusPanel({ botUuid }: { botUuid: string }) {
  const { t } = useTranslation();
  const status = useRouteStatus(botUuid);
  if (status.isPending) return <Skeleton h={120} />;
  if (status.isError) return <ErrorAlert error={status.error} onRetry={() => void status.refetch()} />;
  const { routes, unmatched_events, stale_routes } = status.data;
  return (
    <Stack>
      <StatusTable title={t('routeStatus.routes')} empty={t('routeStatus.routesEmpty')} rows={routes} testId="status-routes" />
      <StatusTable title={t('routeStatus.unmatched')} empty={t('routeStatus.unmatchedEmpty')} rows={unmatched_events} testId="status-unmatched" />
      <StatusTable title={t('routeStatus.stale')} empty={t('routeStatus.staleEmpty')} rows={stale_routes} testId="status-stale" />
    </Stack>
  );
}

function StatusTable({ title, empty, rows, testId }: { title: string; empty: string; rows: RouteStatus[]; testId: string }) {
  const { t, i18n } = useTranslation();
  return (
    <Card withBorder padding="md" component="section" aria-label={title} data-testid={testId}>
      <Title order={2} size="h4" mb="xs">
        {title}
      </Title>
      {rows.length === 0 ? (
        <Text size="sm" c="dimmed">
          {empty}
        </Text>
      ) : (
        <Table.ScrollContainer minWidth={560}>
          <Table striped>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('routeStatus.route')}</Table.Th>
                <Table.Th>{t('routeStatus.event')}</Table.Th>
                <Table.Th>{t('routeStatus.last')}</Table.Th>
                <Table.Th>{t('routeStatus.when')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((r, i) => (
                <Table.Tr key={`${r.binding_id ?? ''}-${r.run_id ?? i}`}>
                  <Table.Td>
                    <Group gap={4}>
                      {r.order != null ? t('routes.routeN', { n: r.order + 1 }) : '—'}
                      {r.enabled === false && (
                        <Badge size="xs" color="gray">
                          {t('routes.disabled')}
                        </Badge>
                      )}
                    </Group>
                    <Text size="xs" c="dimmed">
                      {r.event_pattern ?? ''}
                    </Text>
                  </Table.Td>
                  <Table.Td>{r.event_type ?? '—'}</Table.Td>
                  <Table.Td>
                    <Text size="sm">{r.last_status ?? '—'}</Text>
                    {r.reason && (
                      <Text size="xs" c="dimmed">
                        {r.reason}
                      </Text>
                    )}
                  </Table.Td>
                  <Table.Td>{formatDate(r.timestamp, i18n.language)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </Card>
  );
}
