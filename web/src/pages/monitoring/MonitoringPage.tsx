// The dashboard: filters (window, bots, pipelines, statuses, mode), the figures, the live
// in-flight panel, traffic and token series, executions and sessions paged by the server,
// and CSV export.
import { Anchor, Button, Card, Group, Menu, MultiSelect, SegmentedControl, Select, SimpleGrid, Skeleton, Stack, Table, Tabs, Text, Title } from '@mantine/core';
import { Download, RefreshCw } from 'lucide-react';
import { lazy, Suspense, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

import { api } from '../../api/client';
import { toApiError } from '../../api/errors';
import { STATUS_GROUPS, type SessionRow } from '../../api/types';
import { useSession } from '../../app/session-context';
import { ErrorAlert } from '../../components/ErrorAlert';
import { notifyError, notifySuccess } from '../../components/notify';
import { Pager } from '../../components/Pager';
import { formatDate, formatMs } from '../../lib/format';
import { useQueryClient } from '@tanstack/react-query';
import { keys } from '../../api/keys';
import { useAllPipelines } from '../pipelines/queries';
import { useBots } from '../bots/queries';
import { LivePanel } from './LivePanel';
import { EXECUTIONS_PAGE, type Filters, filterQuery, SESSIONS_PAGE, useDashboard, useDurations, useResetContext, useSessions, useTokenStats, WINDOWS } from './queries';
import { StatusBadge } from './StatusBadge';

import { addArea } from '../../i18n';
import strings from '../../i18n/locales/en_US/monitoring.json';
import { openConfirm } from '../../components/confirm';

// This area's strings come with this chunk (and, in Chinese, before the page renders).
await addArea('monitoring', strings);

const Charts = lazy(() => import('./Charts'));

const EXPORT_TYPES = ['messages', 'llm_calls', 'tool_calls', 'errors', 'sessions'] as const;

export default function MonitoringPage() {
  const { t } = useTranslation();
  const { ws } = useSession();
  const queryClient = useQueryClient();
  const [filters, setFilters] = useState<Filters>({ window: '24h', bots: [], pipelines: [], statuses: [], mode: 'all' });
  const [page, setPage] = useState(1);
  const [sessionPage, setSessionPage] = useState(1);
  const change = (patch: Partial<Filters>) => {
    setFilters((f) => ({ ...f, ...patch }));
    setPage(1);
    setSessionPage(1);
  };
  const dashboard = useDashboard(filters, page);
  const tokens = useTokenStats(filters);
  const durations = useDurations(filters);
  const bots = useBots(1);
  const pipelines = useAllPipelines();
  const overview = dashboard.data?.overview;
  const summary = dashboard.data?.executions.summary;
  const nf = new Intl.NumberFormat();

  const cards = [
    { label: t('monitoring.executions'), value: nf.format(summary?.executions.total ?? 0), id: 'executions' },
    { label: t('monitoring.successRate'), value: overview ? `${overview.success_rate.toFixed(1)}%` : '—', id: 'success' },
    { label: t('monitoring.runningQueued'), value: `${summary?.executions.running ?? 0} / ${summary?.executions.queued ?? 0}`, id: 'running' },
    { label: t('monitoring.failed'), value: nf.format(summary?.executions.failed ?? 0), id: 'failed', hint: t('monitoring.ignored', { count: summary?.executions.ignored ?? 0 }) },
    { label: t('monitoring.duration'), value: `${formatMs(durations.data?.p50)} / ${formatMs(durations.data?.p95)}`, id: 'duration', hint: t('monitoring.durationSample', { count: durations.data?.sample ?? 0 }) },
    { label: t('monitoring.tokens'), value: nf.format(summary?.tokens.total_tokens ?? 0), id: 'tokens', hint: t('monitoring.tokensSplit', { input: nf.format(summary?.tokens.input_tokens ?? 0), output: nf.format(summary?.tokens.output_tokens ?? 0) }) },
    { label: t('monitoring.activeSessions'), value: nf.format(overview?.active_sessions ?? 0), id: 'sessions' },
  ];

  return (
    <Stack>
      <Group justify="space-between" align="flex-end">
        <div>
          <Title order={1} size="h2">
            {t('monitoring.title')}
          </Title>
          <Text size="sm" c="dimmed">
            {t('monitoring.subtitle')}
          </Text>
        </div>
        <Group gap="xs">
          <Button variant="default" leftSection={<RefreshCw size={16} />} onClick={() => void queryClient.invalidateQueries({ queryKey: keys.monitoring(ws) })}>
            {t('monitoring.refresh')}
          </Button>
          <ExportMenu filters={filters} />
        </Group>
      </Group>
      <Card withBorder padding="sm" component="section" aria-label={t('monitoring.filters')}>
        <Group align="flex-end" wrap="wrap" gap="sm">
          <Select label={t('monitoring.window')} w={140} value={filters.window} allowDeselect={false} data={WINDOWS.map((w) => ({ value: w, label: t(`monitoring.windows.${w}`) }))} onChange={(v) => v && change({ window: v })} />
          <MultiSelect label={t('monitoring.bots')} w={200} clearable data={(bots.data?.bots ?? []).map((b) => ({ value: b.uuid, label: b.name }))} value={filters.bots} onChange={(v) => change({ bots: v })} placeholder={filters.bots.length ? undefined : t('monitoring.any')} />
          <MultiSelect label={t('monitoring.pipelines')} w={200} clearable data={(pipelines.data ?? []).map((p) => ({ value: p.uuid, label: p.name }))} value={filters.pipelines} onChange={(v) => change({ pipelines: v })} placeholder={filters.pipelines.length ? undefined : t('monitoring.any')} />
          <MultiSelect label={t('monitoring.statuses')} w={220} clearable data={STATUS_GROUPS.map((s) => ({ value: s, label: t(`monitoring.status.${s}`) }))} value={filters.statuses} onChange={(v) => change({ statuses: v })} placeholder={filters.statuses.length ? undefined : t('monitoring.any')} />
          <div>
            <Text size="sm" fw={500} mb={4} id="mode-label">
              {t('monitoring.mode')}
            </Text>
            <SegmentedControl aria-labelledby="mode-label" value={filters.mode} onChange={(v) => change({ mode: v })} data={(['all', 'real', 'debug'] as const).map((m) => ({ value: m, label: t(`monitoring.modes.${m}`) }))} />
          </div>
          <Button variant="subtle" onClick={() => change({ window: '24h', bots: [], pipelines: [], statuses: [], mode: 'all' })}>
            {t('monitoring.resetFilters')}
          </Button>
        </Group>
      </Card>
      {dashboard.isError && <ErrorAlert error={dashboard.error} onRetry={() => void dashboard.refetch()} />}
      <SimpleGrid cols={{ base: 2, sm: 4, lg: 7 }} spacing="sm">
        {cards.map((c) => (
          <Card key={c.id} withBorder padding="sm" data-testid={`card-${c.id}`}>
            <Text size="xs" c="dimmed">
              {c.label}
            </Text>
            <Text fw={700} size="lg">
              {dashboard.isPending ? '…' : c.value}
            </Text>
            {c.hint && (
              <Text size="xs" c="dimmed">
                {c.hint}
              </Text>
            )}
          </Card>
        ))}
      </SimpleGrid>
      <LivePanel />
      <Suspense fallback={<Skeleton h={260} />}>
        <Charts traffic={dashboard.data?.traffic} tokens={tokens.data} />
      </Suspense>
      <Tabs defaultValue="executions" keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="executions">{t('monitoring.executionsTab')}</Tabs.Tab>
          <Tabs.Tab value="sessions">{t('monitoring.sessionsTab')}</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="executions" pt="sm">
          {dashboard.data && dashboard.data.executions.items.length === 0 ? (
            <Card withBorder padding="lg">
              <Text fw={500}>{t('monitoring.noExecutions')}</Text>
              <Text size="sm" c="dimmed">
                {t('monitoring.noExecutionsHint')}
              </Text>
            </Card>
          ) : (
            <ExecutionsTable items={dashboard.data?.executions.items ?? []} />
          )}
          {dashboard.data && <Pager total={dashboard.data.executions.total} pageSize={EXECUTIONS_PAGE} page={page} onChange={setPage} />}
        </Tabs.Panel>
        <Tabs.Panel value="sessions" pt="sm">
          <Sessions filters={filters} page={sessionPage} onPage={setSessionPage} />
        </Tabs.Panel>
      </Tabs>
    </Stack>
  );
}

function ExecutionsTable({ items }: { items: NonNullable<ReturnType<typeof useDashboard>['data']>['executions']['items'] }) {
  const { t, i18n } = useTranslation();
  return (
    <Card withBorder padding={0}>
      <Table.ScrollContainer minWidth={760}>
        <Table verticalSpacing="xs" highlightOnHover data-testid="executions-table">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t('monitoring.col.status')}</Table.Th>
              <Table.Th>{t('monitoring.col.input')}</Table.Th>
              <Table.Th>{t('monitoring.col.bot')}</Table.Th>
              <Table.Th>{t('monitoring.col.duration')}</Table.Th>
              <Table.Th>{t('monitoring.col.tokens')}</Table.Th>
              <Table.Th>{t('monitoring.col.started')}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {items.map((e) => (
              <Table.Tr key={e.id} data-testid="execution-row">
                <Table.Td>
                  <StatusBadge status={e.status_group} />
                </Table.Td>
                <Table.Td>
                  <Anchor component={Link} to={`/monitoring/executions/${e.source}/${encodeURIComponent(e.id)}`} size="sm" lineClamp={1}>
                    {e.input_preview || e.id}
                  </Anchor>
                  {e.debug && (
                    <Text size="xs" c="dimmed">
                      {t('monitoring.modes.debug')}
                    </Text>
                  )}
                </Table.Td>
                <Table.Td>
                  <Text size="sm">{e.bot_name}</Text>
                  <Text size="xs" c="dimmed">
                    {e.pipeline_name}
                  </Text>
                </Table.Td>
                <Table.Td>{formatMs(e.duration_ms)}</Table.Td>
                <Table.Td>{e.usage?.total_tokens ?? '—'}</Table.Td>
                <Table.Td>{formatDate(new Date(e.started_at_ms).toISOString(), i18n.language)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Card>
  );
}

function Sessions({ filters, page, onPage }: { filters: Filters; page: number; onPage: (p: number) => void }) {
  const { t, i18n } = useTranslation();
  const { can } = useSession();
  const sessions = useSessions(filters, page);
  const reset = useResetContext();
  const confirm = (s: SessionRow) =>
    openConfirm({
      title: t('monitoring.resetTitle'),
      children: <Text size="sm">{t('monitoring.resetBody', { session: s.session_id, bot: s.bot_name })}</Text>,
      labels: { confirm: t('monitoring.reset'), cancel: t('common.cancel') },
      confirmProps: { color: 'orange', 'data-testid': 'confirm-reset' } as Record<string, string>,
      onConfirm: () =>
        reset.mutate(
          { bot_id: s.bot_id, session_id: s.session_id },
          { onSuccess: () => notifySuccess(t('monitoring.resetDone', { session: s.session_id })), onError: (e) => notifyError(e) },
        ),
    });
  if (sessions.isError) return <ErrorAlert error={sessions.error} onRetry={() => void sessions.refetch()} />;
  if (!sessions.data) return <Skeleton h={120} />;
  if (sessions.data.sessions.length === 0)
    return (
      <Card withBorder padding="lg">
        <Text fw={500}>{t('monitoring.noSessions')}</Text>
        <Text size="sm" c="dimmed">
          {t('monitoring.noExecutionsHint')}
        </Text>
      </Card>
    );
  return (
    <>
      <Card withBorder padding={0}>
        <Table.ScrollContainer minWidth={700}>
          <Table verticalSpacing="xs" data-testid="sessions-table">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('monitoring.col.session')}</Table.Th>
                <Table.Th>{t('monitoring.col.bot')}</Table.Th>
                <Table.Th>{t('monitoring.col.messages')}</Table.Th>
                <Table.Th>{t('monitoring.col.lastActivity')}</Table.Th>
                <Table.Th>{t('common.actions')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {sessions.data.sessions.map((s) => (
                <Table.Tr key={`${s.bot_id}-${s.session_id}`} data-testid={`session-${s.session_id}`}>
                  <Table.Td>
                    <Text size="sm">{s.session_id}</Text>
                    <Text size="xs" c="dimmed">
                      {s.user_name ?? s.user_id ?? ''}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm">{s.bot_name}</Text>
                    <Text size="xs" c="dimmed">
                      {s.pipeline_name}
                    </Text>
                  </Table.Td>
                  <Table.Td>{s.message_count}</Table.Td>
                  <Table.Td>{formatDate(s.last_activity, i18n.language)}</Table.Td>
                  <Table.Td>
                    {can('runtime.operate') && (
                      <Button size="compact-sm" variant="light" color="orange" onClick={() => confirm(s)} aria-label={t('monitoring.resetNamed', { session: s.session_id })}>
                        {t('monitoring.reset')}
                      </Button>
                    )}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      </Card>
      <Pager total={sessions.data.total} pageSize={SESSIONS_PAGE} page={page} onChange={onPage} />
    </>
  );
}

function ExportMenu({ filters }: { filters: Filters }) {
  const { t } = useTranslation();
  const [busy, setBusy] = useState(false);
  const download = async (type: (typeof EXPORT_TYPES)[number]) => {
    setBusy(true);
    try {
      const { start_time, end_time, bot_ids, pipeline_ids, statuses, mode } = { bot_ids: undefined, pipeline_ids: undefined, statuses: undefined, ...filterQuery(filters) };
      const result = await api.GET('/api/v1/monitoring/export', {
        params: { query: { start_time, end_time, mode, type, format: 'csv', ...(bot_ids ? { bot_ids } : {}), ...(pipeline_ids ? { pipeline_ids } : {}), ...(statuses ? { statuses } : {}) } },
        parseAs: 'blob',
      });
      if (!result.response.ok || !(result.data instanceof Blob)) throw toApiError(result.response.status, result.error);
      const url = URL.createObjectURL(result.data);
      const a = document.createElement('a');
      a.href = url;
      a.download = `langbot-${type}-${new Date().toISOString().slice(0, 19).replace(/:/g, '')}.csv`;
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    } catch (error) {
      notifyError(error);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Menu position="bottom-end">
      <Menu.Target>
        <Button leftSection={<Download size={16} />} loading={busy} data-testid="export">
          {t('monitoring.export')}
        </Button>
      </Menu.Target>
      <Menu.Dropdown>
        {EXPORT_TYPES.map((type) => (
          <Menu.Item key={type} onClick={() => void download(type)} data-testid={`export-${type}`}>
            {t(`monitoring.exportType.${type}`)}
          </Menu.Item>
        ))}
      </Menu.Dropdown>
    </Menu>
  );
}
