import { ActionIcon, Badge, Button, Group, Loader, Table, Text, Tooltip } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { CircleCheck, CircleX, Pencil, Play, Star, Trash2 } from 'lucide-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';

import { ApiError } from '../../api/errors';
import type { Model, ModelKind, Provider } from '../../api/types';
import { useSession } from '../../app/session-context';
import { ErrorAlert } from '../../components/ErrorAlert';
import { errorText, notifySuccess } from '../../components/notify';
import { Pager } from '../../components/Pager';
import { Dialog, ModelFormModal } from './dialogs';
import { MODELS_PAGE, useDeleteModel, useModels, useSetStarred, useTestModel } from './queries';
import { openConfirm } from '../../components/confirm';

export function ModelTable({ kind, provider, starred }: { kind: ModelKind; provider: Provider; starred: string | null }) {
  const { t } = useTranslation();
  const [page, setPage] = useState(1);
  const models = useModels(kind, provider.uuid, page);
  if (models.isPending) return <Loader size="sm" m="sm" aria-label={t('common.loading')} />;
  if (models.isError) return <ErrorAlert error={models.error} onRetry={() => void models.refetch()} />;
  if (models.data.models.length === 0) {
    return (
      <Text size="sm" c="dimmed" p="sm">
        {t('models.none')}
      </Text>
    );
  }
  return (
    <>
      <Table.ScrollContainer minWidth={560}>
        <Table verticalSpacing={6} highlightOnHover>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t('models.name')}</Table.Th>
              <Table.Th>{t('models.test')}</Table.Th>
              <Table.Th w={150}>
                <span className="visually-hidden">{t('common.actions')}</span>
              </Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {models.data.models.map((m) => (
              <ModelRow key={m.uuid} kind={kind} model={m} provider={provider} starred={starred === m.uuid} />
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      <Pager total={models.data.total} pageSize={MODELS_PAGE} page={page} onChange={setPage} />
    </>
  );
}

function ModelRow({ kind, model, provider, starred }: { kind: ModelKind; model: Model; provider: Provider; starred: boolean }) {
  const { t } = useTranslation();
  const { can } = useSession();
  const test = useTestModel(kind);
  const star = useSetStarred();
  const remove = useDeleteModel(kind);
  const [editing, edit] = useDisclosure();

  const confirmDelete = () =>
    openConfirm({
      title: t('models.deleteTitle', { name: model.name }),
      children: <Text size="sm">{starred ? t('models.deleteStarred') : t('models.deleteBody')}</Text>,
      labels: { confirm: t('common.delete'), cancel: t('common.cancel') },
      confirmProps: { color: 'red' },
      onConfirm: () => remove.mutate(model.uuid, { onSuccess: () => notifySuccess(t('models.deleted', { name: model.name })) }),
    });

  return (
    <Table.Tr data-testid={`model-${model.name}`}>
      <Table.Td>
        <Group gap={6} wrap="nowrap">
          <Text size="sm" fw={500} ff="monospace">
            {model.name}
          </Text>
          {starred && (
            <Badge size="xs" color="yellow" variant="light" data-testid="starred-badge">
              {t('models.default')}
            </Badge>
          )}
          {model.abilities?.map((a) => (
            <Badge key={a} size="xs" variant="outline" color="gray">
              {t(`models.ability.${a}`, { defaultValue: a })}
            </Badge>
          ))}
        </Group>
      </Table.Td>
      <Table.Td>
        <TestResult test={test} />
      </Table.Td>
      <Table.Td>
        <Group gap={2} justify="flex-end" wrap="nowrap">
          {can('provider_secret.manage') && (
            <Button size="compact-xs" variant="light" leftSection={<Play size={12} />} loading={test.isPending} onClick={() => test.mutate(model.uuid)} aria-label={t('models.testNamed', { name: model.name })}>
              {t('models.test')}
            </Button>
          )}
          {kind === 'llm' && can('provider_secret.manage') && (
            <Tooltip label={starred ? t('models.unstar') : t('models.star')}>
              <ActionIcon
                variant="subtle"
                color="yellow"
                aria-label={starred ? t('models.unstarNamed', { name: model.name }) : t('models.starNamed', { name: model.name })}
                aria-pressed={starred}
                loading={star.isPending}
                onClick={() => star.mutate(starred ? null : model.uuid)}
              >
                <Star size={16} fill={starred ? 'currentColor' : 'none'} />
              </ActionIcon>
            </Tooltip>
          )}
          {can('provider_secret.manage') && (
            <Tooltip label={t('common.edit')}>
              <ActionIcon variant="subtle" aria-label={t('models.editNamed', { name: model.name })} onClick={edit.open}>
                <Pencil size={16} />
              </ActionIcon>
            </Tooltip>
          )}
          {can('resource.manage') && (
            <Tooltip label={t('common.delete')}>
              <ActionIcon variant="subtle" color="red" aria-label={t('models.deleteNamed', { name: model.name })} onClick={confirmDelete} loading={remove.isPending}>
                <Trash2 size={16} />
              </ActionIcon>
            </Tooltip>
          )}
        </Group>
        {editing && (
          <Dialog>
            <ModelFormModal kind={kind} provider={provider} model={model} onClose={edit.close} />
          </Dialog>
        )}
      </Table.Td>
    </Table.Tr>
  );
}

function TestResult({ test }: { test: ReturnType<typeof useTestModel> }) {
  const { t } = useTranslation();
  if (test.isSuccess) {
    return (
      <Group gap={4} wrap="nowrap" c="teal" data-testid="test-result" role="status">
        <CircleCheck size={14} aria-hidden />
        <Text size="xs">{t('models.latency', { ms: test.data.latency_ms })}</Text>
      </Group>
    );
  }
  if (test.isError) {
    return (
      <Group gap={4} wrap="nowrap" c="red" data-testid="test-result" role="status" align="flex-start">
        <CircleX size={14} aria-hidden style={{ flex: 'none', marginTop: 2 }} />
        <Text size="xs" lineClamp={3}>
          {testFailure(test.error)}
        </Text>
      </Group>
    );
  }
  return (
    <Text size="xs" c="dimmed">
      —
    </Text>
  );
}

/** The server's (localized) message, plus the provider's own words and HTTP status where the
 *  message does not already carry them (the translated messages do not). */
export function testFailure(error: unknown): string {
  let text = errorText(error);
  const details = error instanceof ApiError ? error.details : null;
  const upstream = details?.message;
  const status = details?.upstream_status;
  if (typeof upstream === 'string' && upstream && !text.includes(upstream)) text += `: ${upstream}`;
  if (typeof status === 'number' && !text.includes(`HTTP ${status}`)) text += ` (HTTP ${status})`;
  return text;
}
