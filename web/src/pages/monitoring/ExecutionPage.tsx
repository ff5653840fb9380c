// One execution: overview, conversation, LLM calls (timing, usage), tool calls, errors and
// related executions, each paged as the API pages it ("Load more" asks for the next page).
import { Anchor, Badge, Breadcrumbs, Button, Card, Code, Group, SimpleGrid, Skeleton, Stack, Table, Tabs, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router';

import { api, unwrap } from '../../api/client';
import type { ErrorRow, ExecutionRow, LlmCallRow, MessageRow, SectionPage, ToolCallRow } from '../../api/types';
import { ErrorAlert } from '../../components/ErrorAlert';
import { formatDate, formatMs } from '../../lib/format';
import { useExecution } from './queries';
import { StatusBadge } from './StatusBadge';

import { addArea } from '../../i18n';
import strings from '../../i18n/locales/en_US/monitoring.json';
import { chainOf } from '../../api/chain';

// This area's strings come with this chunk (and, in Chinese, before the page renders).
await addArea('monitoring', strings);

const SECTIONS = ['conversation', 'llm_calls', 'tool_calls', 'errors', 'related'] as const;
type Section = (typeof SECTIONS)[number];

export default function ExecutionPage() {
  const { source = 'auto', id = '' } = useParams();
  const { t, i18n } = useTranslation();
  const detail = useExecution(source, id);
  if (detail.isPending) return <Skeleton h={240} />;
  if (detail.isError) return <ErrorAlert error={detail.error} onRetry={() => void detail.refetch()} />;
  const row = detail.data.row;
  // Absent for executions recorded before tool calls were.
  const stats = detail.data.tool_stats as typeof detail.data.tool_stats | undefined;
  return (
    <Stack>
      <Breadcrumbs>
        <Anchor component={Link} to="/monitoring" size="sm">
          {t('nav.monitoring')}
        </Anchor>
        <Text size="sm">{id}</Text>
      </Breadcrumbs>
      <Group gap="xs">
        <Title order={1} size="h2">
          {t('execution.title')}
        </Title>
        {row && <StatusBadge status={row.status_group} />}
      </Group>
      {row && (
        <Card withBorder padding="md" component="section" aria-label={t('execution.overview')} data-testid="execution-overview">
          <SimpleGrid cols={{ base: 2, md: 4 }}>
            <Fact label={t('monitoring.col.bot')} value={row.bot_name} />
            <Fact label={t('execution.pipeline')} value={row.pipeline_name} />
            <Fact label={t('monitoring.col.session')} value={row.session_id} />
            <Fact label={t('monitoring.col.duration')} value={formatMs(row.duration_ms)} />
            <Fact label={t('monitoring.col.started')} value={formatDate(new Date(row.started_at_ms).toISOString(), i18n.language)} />
            <Fact label={t('execution.mode')} value={row.debug ? t('monitoring.modes.debug') : t('monitoring.modes.real')} />
            <Fact label={t('monitoring.col.tokens')} value={row.usage ? `${row.usage.total_tokens} (${row.usage.input_tokens} / ${row.usage.output_tokens})` : '—'} />
            <Fact label={t('execution.toolCalls')} value={stats ? `${stats.total_calls} (${stats.error_calls} ${t('execution.failedCalls')})` : '—'} />
          </SimpleGrid>
          {row.status_reason && (
            <Text size="sm" c="dimmed" mt="sm">
              {row.status_reason}
            </Text>
          )}
        </Card>
      )}
      <Tabs defaultValue="conversation">
        <Tabs.List>
          {SECTIONS.map((s) => (
            <Tabs.Tab key={s} value={s}>
              {t(`execution.section.${s}`)}
            </Tabs.Tab>
          ))}
        </Tabs.List>
        {SECTIONS.map((s) => (
          <Tabs.Panel key={s} value={s} pt="sm">
            <SectionList source={source} id={id} section={s} first={detail.data.pages[s]} />
          </Tabs.Panel>
        ))}
      </Tabs>
    </Stack>
  );
}

function Fact({ label, value }: { label: string; value: string }) {
  return (
    <div>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text size="sm" fw={500} style={{ wordBreak: 'break-all' }}>
        {value}
      </Text>
    </div>
  );
}

function SectionList({ source, id, section, first }: { source: string; id: string; section: Section; first: SectionPage | undefined }) {
  const { t } = useTranslation();
  const [pages, setPages] = useState<SectionPage[]>(first ? [first] : []);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const last = pages[pages.length - 1];
  const items = pages.flatMap((p) => p.items) as unknown[];
  const more = async () => {
    if (!last) return;
    setLoading(true);
    setError(null);
    try {
      const next = await unwrap(api.GET('/api/v1/monitoring/executions/{source}/{execution_id}', { params: { path: { source, execution_id: id }, query: { section, offset: last.next_offset, limit: 20 } } }));
      const page = next.pages[section];
      if (page) setPages((all) => [...all, page]);
    } catch (e) {
      setError(e);
    } finally {
      setLoading(false);
    }
  };
  if (items.length === 0)
    return (
      <Text size="sm" c="dimmed">
        {t(`execution.empty.${section}`)}
      </Text>
    );
  return (
    <Stack data-testid={`section-${section}`}>
      {section === 'conversation' && <Conversation items={items as MessageRow[]} />}
      {section === 'llm_calls' && <LlmCalls items={items as LlmCallRow[]} />}
      {section === 'tool_calls' && <ToolCalls items={items as ToolCallRow[]} />}
      {section === 'errors' && <Errors items={items as ErrorRow[]} />}
      {section === 'related' && <Related items={items as ExecutionRow[]} />}
      {error !== null && <ErrorAlert error={error} />}
      {last?.has_more && (
        <Group>
          <Button variant="default" onClick={() => void more()} loading={loading}>
            {t('execution.loadMore')}
          </Button>
        </Group>
      )}
    </Stack>
  );
}

function chainText(stored: unknown): string {
  const content = chainOf(stored);
  if (!Array.isArray(content)) return typeof content === 'string' ? content : JSON.stringify(content);
  return content.map((c: { type?: string; text?: string }) => (c.type === 'Plain' ? (c.text ?? '') : `[${c.type ?? '?'}]`)).join('');
}

function Conversation({ items }: { items: MessageRow[] }) {
  const { i18n, t } = useTranslation();
  return (
    <Stack gap="xs">
      {items.map((m) => (
        <Card key={m.id} withBorder padding="xs">
          <Group justify="space-between">
            <Badge size="sm" variant="light" color={m.role === 'user' ? 'blue' : 'teal'}>
              {m.role === 'user' ? t('execution.user') : t('execution.assistant')}
            </Badge>
            <Text size="xs" c="dimmed">
              {formatDate(m.timestamp, i18n.language)}
            </Text>
          </Group>
          <Text size="sm" mt={4} style={{ whiteSpace: 'pre-wrap' }}>
            {chainText(m.message_content)}
          </Text>
        </Card>
      ))}
    </Stack>
  );
}

function LlmCalls({ items }: { items: LlmCallRow[] }) {
  const { t, i18n } = useTranslation();
  return (
    <Table.ScrollContainer minWidth={640}>
      <Table data-testid="llm-calls">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{t('execution.model')}</Table.Th>
            <Table.Th>{t('monitoring.col.status')}</Table.Th>
            <Table.Th>{t('monitoring.col.duration')}</Table.Th>
            <Table.Th>{t('monitoring.inputTokens')}</Table.Th>
            <Table.Th>{t('monitoring.outputTokens')}</Table.Th>
            <Table.Th>{t('execution.totalTokens')}</Table.Th>
            <Table.Th>{t('execution.when')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {items.map((c) => (
            <Table.Tr key={c.id} data-testid="llm-call">
              <Table.Td>{c.model_name}</Table.Td>
              <Table.Td>
                <Text size="sm">{c.status}</Text>
                {c.error_message && (
                  <Text size="xs" c="red">
                    {c.error_message}
                  </Text>
                )}
              </Table.Td>
              <Table.Td data-testid="llm-duration">{formatMs(c.duration)}</Table.Td>
              <Table.Td data-testid="llm-input">{c.input_tokens}</Table.Td>
              <Table.Td data-testid="llm-output">{c.output_tokens}</Table.Td>
              <Table.Td data-testid="llm-total">{c.total_tokens}</Table.Td>
              <Table.Td>{formatDate(c.timestamp, i18n.language)}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

function ToolCalls({ items }: { items: ToolCallRow[] }) {
  const { t } = useTranslation();
  return (
    <Stack gap="xs">
      {items.map((c) => (
        <Card key={c.id} withBorder padding="xs" data-testid="tool-call">
          <Group justify="space-between">
            <Group gap="xs">
              <Text fw={500} size="sm">
                {c.tool_name}
              </Text>
              <Badge size="xs" variant="light">
                {c.source_name}
              </Badge>
              <Badge size="xs" color={c.status === 'success' ? 'teal' : 'red'}>
                {c.status}
              </Badge>
            </Group>
            <Text size="xs">{formatMs(c.duration)}</Text>
          </Group>
          {c.arguments && (
            <>
              <Text size="xs" c="dimmed" mt={4}>
                {t('execution.arguments')}
              </Text>
              <Code block>{c.arguments}</Code>
            </>
          )}
          {(c.result ?? c.error_message) && (
            <>
              <Text size="xs" c="dimmed" mt={4}>
                {t('execution.result')}
              </Text>
              <Code block>{c.error_message ?? c.result}</Code>
            </>
          )}
        </Card>
      ))}
    </Stack>
  );
}

function Errors({ items }: { items: ErrorRow[] }) {
  const { i18n } = useTranslation();
  return (
    <Stack gap="xs">
      {items.map((e) => (
        <Card key={e.id} withBorder padding="xs">
          <Group justify="space-between">
            <Text size="sm" fw={500} c="red">
              {e.error_type}
            </Text>
            <Text size="xs" c="dimmed">
              {formatDate(e.timestamp, i18n.language)}
            </Text>
          </Group>
          <Code block mt={4}>
            {e.error_message}
          </Code>
        </Card>
      ))}
    </Stack>
  );
}

function Related({ items }: { items: ExecutionRow[] }) {
  const { i18n } = useTranslation();
  return (
    <Stack gap={4}>
      {items.map((e) => (
        <Group key={e.id} gap="xs">
          <StatusBadge status={e.status_group} />
          <Anchor component={Link} to={`/monitoring/executions/${e.source}/${encodeURIComponent(e.id)}`} size="sm">
            {e.input_preview || e.id}
          </Anchor>
          <Text size="xs" c="dimmed">
            {formatDate(new Date(e.started_at_ms).toISOString(), i18n.language)}
          </Text>
        </Group>
      ))}
    </Stack>
  );
}
