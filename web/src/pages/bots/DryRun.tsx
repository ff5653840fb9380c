// Dry-run: a test event (typed, or a recent message of this bot) routed through the draft
// routes; shows which route matches and why each other one did not.
import { Alert, Badge, Button, Card, Checkbox, Group, List, SegmentedControl, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';

import { jsonObject } from '../../api/json';
import type { DryRunResult, Pipeline, RouteInput } from '../../api/types';
import { ErrorAlert } from '../../components/ErrorAlert';
import { BOT_ACCOUNT, eventData, type TestEvent } from './routes';
import { useDryRun, useRecentMessages } from './queries';
import { chainOf } from '../../api/chain';

interface Props {
  botUuid: string;
  /** The routes as drafted (tried instead of the saved ones). */
  routes: () => RouteInput[];
  pipelines: Pipeline[];
  onResult: (matched: number | null) => void;
}

function textOf(stored: unknown): string {
  const content = chainOf(stored);
  if (!Array.isArray(content)) return typeof content === 'string' ? content : '';
  return content
    .filter((c): c is { type: string; text?: string } => typeof c === 'object' && c !== null && (c as { type?: unknown }).type === 'Plain')
    .map((c) => c.text ?? '')
    .join('');
}

export function DryRun({ botUuid, routes, pipelines, onResult }: Props) {
  const { t } = useTranslation();
  const [event, setEvent] = useState<TestEvent>({ text: '', chatType: 'person', senderId: 'user-1', groupId: 'group-1', atBot: false });
  const recent = useRecentMessages(botUuid);
  const run = useDryRun(botUuid);
  const inbound = (recent.data?.messages ?? []).filter((m) => m.role === 'user');

  const submit = () => {
    run.mutate(
      { event_type: 'message.received', event_data: jsonObject(eventData(event)), event_bindings: routes(), context: jsonObject({ bot_account_id: BOT_ACCOUNT }) },
      { onSuccess: (r) => onResult(r.matched_binding_index ?? null), onError: () => onResult(null) },
    );
  };

  return (
    <Card withBorder padding="md" component="section" aria-labelledby="dry-run-title">
      <Stack gap="sm">
        <Title order={2} size="h4" id="dry-run-title">
          {t('dryRun.title')}
        </Title>
        <Text size="xs" c="dimmed">
          {t('dryRun.hint')}
        </Text>
        {inbound.length > 0 && (
          <Select
            label={t('dryRun.recent')}
            placeholder={t('dryRun.recentPlaceholder')}
            data={inbound.map((m) => ({ value: m.id, label: `${m.user_name ?? m.user_id ?? m.session_id}: ${textOf(m.message_content).slice(0, 60)}` }))}
            onChange={(id) => {
              const m = inbound.find((x) => x.id === id);
              if (!m) return;
              const group = m.session_id.startsWith('group_');
              setEvent({ ...event, text: textOf(m.message_content), chatType: group ? 'group' : 'person', senderId: m.user_id ?? event.senderId, groupId: group ? m.session_id.replace(/^group_/, '') : event.groupId });
            }}
          />
        )}
        <TextInput label={t('dryRun.text')} value={event.text} onChange={(e) => setEvent({ ...event, text: e.currentTarget.value })} data-testid="dry-run-text" />
        <SegmentedControl
          aria-label={t('dryRun.chatType')}
          value={event.chatType}
          onChange={(v) => setEvent({ ...event, chatType: v === 'group' ? 'group' : 'person' })}
          data={[
            { value: 'person', label: t('dryRun.person') },
            { value: 'group', label: t('dryRun.group') },
          ]}
        />
        <Group grow>
          <TextInput label={t('dryRun.sender')} value={event.senderId} onChange={(e) => setEvent({ ...event, senderId: e.currentTarget.value })} />
          {event.chatType === 'group' && <TextInput label={t('dryRun.groupId')} value={event.groupId} onChange={(e) => setEvent({ ...event, groupId: e.currentTarget.value })} />}
        </Group>
        <Checkbox label={t('dryRun.atBot')} checked={event.atBot} onChange={(e) => setEvent({ ...event, atBot: e.currentTarget.checked })} />
        <Group>
          <Button onClick={submit} loading={run.isPending} data-testid="dry-run-submit">
            {t('dryRun.run')}
          </Button>
        </Group>
        {run.isError && <ErrorAlert error={run.error} />}
        {run.data && <Outcome result={run.data} pipelines={pipelines} />}
      </Stack>
    </Card>
  );
}

function Outcome({ result, pipelines }: { result: DryRunResult; pipelines: Pipeline[] }) {
  const { t } = useTranslation();
  const name = (uuid: string | null | undefined) => pipelines.find((p) => p.uuid === uuid)?.name ?? uuid ?? '';
  const index = result.matched_binding_index;
  return (
    <Stack gap="xs" data-testid="dry-run-result" aria-live="polite">
      {result.matched && index != null ? (
        <Alert color="teal" title={t('dryRun.matched', { n: index + 1 })}>
          {result.target_type === 'discard' ? t('dryRun.discarded') : t('dryRun.goesTo', { name: result.target?.target_name ?? name(result.target_uuid) })}
        </Alert>
      ) : (
        <Alert color="orange" title={t('dryRun.noMatch')}>
          {result.reason}
        </Alert>
      )}
      <List size="sm" spacing={4}>
        {result.diagnostic_details.map((step) => (
          <List.Item key={step.binding_id || step.index}>
            <Group gap={6} wrap="nowrap" align="flex-start">
              <Badge size="sm" variant="light" color={step.selected ? 'teal' : 'gray'}>
                {t('routes.routeN', { n: step.index + 1 })}
              </Badge>
              <Text size="sm">
                {step.selected ? t('dryRun.selected') : t(`dryRun.verdict.${step.failure_code ?? 'lower_priority'}`)}
                {step.failed_filter != null && ` (${t('dryRun.condition', { n: step.failed_filter + 1 })})`}
                <Text span size="xs" c="dimmed">
                  {' '}
                  — {step.reason}
                </Text>
              </Text>
            </Group>
          </List.Item>
        ))}
      </List>
    </Stack>
  );
}
