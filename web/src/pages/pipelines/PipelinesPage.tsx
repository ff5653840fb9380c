// The Workspace's pipelines: the default marker (moved by "Make default"), copy, delete
// (naming the routes that target it, which go with it), create.
import { ActionIcon, Alert, Anchor, Badge, Button, Card, Group, List, Loader, Modal, Skeleton, Stack, Table, Text, Textarea, TextInput, Title, Tooltip } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useDisclosure } from '@mantine/hooks';
import { useQuery } from '@tanstack/react-query';
import { Copy, Plus, Star, Trash2 } from 'lucide-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';

import { api, unwrap } from '../../api/client';
import type { Bot, Pipeline } from '../../api/types';
import { useSession } from '../../app/session-context';
import { ErrorAlert } from '../../components/ErrorAlert';
import { notifySuccess } from '../../components/notify';
import { Pager } from '../../components/Pager';
import { applyServerErrors } from '../../forms/serverErrors';
import { formatDate } from '../../lib/format';
import { PIPELINES_PAGE, useCopyPipeline, useCreatePipeline, useDeletePipeline, usePipelines, useSetDefault } from './queries';

import { addArea } from '../../i18n';
import strings from '../../i18n/locales/en_US/pipelines.json';

// This area's strings come with this chunk (and, in Chinese, before the page renders).
await addArea('pipelines', strings);

export default function PipelinesPage() {
  const { t, i18n } = useTranslation();
  const { can } = useSession();
  const [page, setPage] = useState(1);
  const pipelines = usePipelines(page);
  const copy = useCopyPipeline();
  const setDefault = useSetDefault();
  const [creating, { open, close }] = useDisclosure();
  const [deleting, setDeleting] = useState<Pipeline | null>(null);
  const manage = can('resource.manage');

  return (
    <Stack>
      <Group justify="space-between" align="flex-end">
        <div>
          <Title order={1} size="h2">
            {t('pipelines.title')}
          </Title>
          <Text size="sm" c="dimmed">
            {t('pipelines.subtitle')}
          </Text>
        </div>
        {manage && (
          <Button leftSection={<Plus size={16} />} onClick={open}>
            {t('pipelines.add')}
          </Button>
        )}
      </Group>
      {pipelines.isError && <ErrorAlert error={pipelines.error} onRetry={() => void pipelines.refetch()} />}
      {pipelines.isPending && <Skeleton h={160} />}
      {pipelines.data?.pipelines.length === 0 && (
        <Card withBorder padding="xl">
          <Stack align="center" gap="xs">
            <Text fw={500}>{t('pipelines.empty')}</Text>
            <Text size="sm" c="dimmed">
              {t('pipelines.emptyHint')}
            </Text>
          </Stack>
        </Card>
      )}
      {pipelines.data && pipelines.data.pipelines.length > 0 && (
        <Card withBorder padding={0}>
          <Table.ScrollContainer minWidth={640}>
            <Table verticalSpacing="sm" highlightOnHover>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{t('pipelines.name')}</Table.Th>
                  <Table.Th>{t('pipelines.updated')}</Table.Th>
                  <Table.Th>{t('common.actions')}</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {pipelines.data.pipelines.map((p) => (
                  <Table.Tr key={p.uuid} data-testid={`pipeline-${p.name}`}>
                    <Table.Td>
                      <Group gap="xs" wrap="nowrap">
                        <Text span aria-hidden>
                          {p.emoji}
                        </Text>
                        <Anchor component={Link} to={`/pipelines/${p.uuid}`} fw={500}>
                          {p.name}
                        </Anchor>
                        {p.is_default && (
                          <Badge leftSection={<Star size={12} />} variant="light" data-testid="default-badge">
                            {t('pipelines.default')}
                          </Badge>
                        )}
                      </Group>
                      {p.description && (
                        <Text size="xs" c="dimmed" lineClamp={1}>
                          {p.description}
                        </Text>
                      )}
                    </Table.Td>
                    <Table.Td>{formatDate(p.updated_at, i18n.language)}</Table.Td>
                    <Table.Td>
                      {manage && (
                        <Group gap={4} wrap="nowrap">
                          {!p.is_default && (
                            <Button size="compact-sm" variant="subtle" leftSection={<Star size={14} />} onClick={() => setDefault.mutate(p.uuid, { onSuccess: () => notifySuccess(t('pipelines.defaultMoved', { name: p.name })) })} loading={setDefault.isPending && setDefault.variables === p.uuid}>
                              {t('pipelines.makeDefault')}
                            </Button>
                          )}
                          <Tooltip label={t('pipelines.copy', { name: p.name })}>
                            <ActionIcon variant="subtle" aria-label={t('pipelines.copy', { name: p.name })} onClick={() => copy.mutate(p.uuid, { onSuccess: () => notifySuccess(t('pipelines.copied', { name: p.name })) })} loading={copy.isPending && copy.variables === p.uuid}>
                              <Copy size={16} />
                            </ActionIcon>
                          </Tooltip>
                          <Tooltip label={t('pipelines.delete', { name: p.name })}>
                            <ActionIcon variant="subtle" color="red" aria-label={t('pipelines.delete', { name: p.name })} onClick={() => setDeleting(p)}>
                              <Trash2 size={16} />
                            </ActionIcon>
                          </Tooltip>
                        </Group>
                      )}
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        </Card>
      )}
      {pipelines.data && <Pager total={pipelines.data.total} pageSize={PIPELINES_PAGE} page={page} onChange={setPage} />}
      {creating && <CreatePipeline onClose={close} />}
      {deleting && <DeletePipeline pipeline={deleting} onClose={() => setDeleting(null)} />}
    </Stack>
  );
}

function CreatePipeline({ onClose }: { onClose: () => void }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const create = useCreatePipeline();
  const form = useForm({ initialValues: { name: '', description: '' }, validate: { name: (v) => (v.trim() ? null : t('common.required')) } });
  return (
    <Modal opened onClose={onClose} title={t('pipelines.add')}>
      <form
        noValidate
        onSubmit={form.onSubmit((v) =>
          create.mutate(
            { name: v.name.trim(), description: v.description },
            {
              onSuccess: (created) => {
                notifySuccess(t('pipelines.created'));
                onClose();
                void navigate(`/pipelines/${created.uuid}`);
              },
              onError: (e) => applyServerErrors(form, e),
            },
          ),
        )}
      >
        <Stack>
          <TextInput label={t('pipelines.name')} required maxLength={255} {...form.getInputProps('name')} />
          <Textarea label={t('pipelines.description')} autosize minRows={2} {...form.getInputProps('description')} />
          {create.isError && Object.keys(form.errors).length === 0 && <ErrorAlert error={create.error} />}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              {t('common.cancel')}
            </Button>
            <Button type="submit" loading={create.isPending}>
              {t('common.create')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

/** Every bot (the server caps a page at 500), to find the routes targeting a pipeline. */
async function allBots(): Promise<Bot[]> {
  const out: Bot[] = [];
  for (let offset = 0; ; offset += 500) {
    const page = await unwrap(api.GET('/api/v1/platform/bots', { params: { query: { limit: 500, offset } } }));
    out.push(...page.bots);
    if (page.bots.length === 0 || out.length >= page.total) return out;
  }
}

function DeletePipeline({ pipeline, onClose }: { pipeline: Pipeline; onClose: () => void }) {
  const { t } = useTranslation();
  const remove = useDeletePipeline();
  const preview = useQuery({
    queryKey: ['pipeline-delete-preview', pipeline.uuid],
    queryFn: async () =>
      (await allBots())
        .map((b) => ({ bot: b, routes: b.event_bindings.filter((r) => r.target_type === 'pipeline' && r.target_uuid === pipeline.uuid) }))
        .filter((x) => x.routes.length > 0),
    gcTime: 0,
    staleTime: 0,
  });
  const count = preview.data?.reduce((n, x) => n + x.routes.length, 0) ?? 0;
  const confirm = () =>
    remove.mutate(
      { uuid: pipeline.uuid, cascade: count > 0 },
      {
        onSuccess: (report) => {
          const removed = report.removed_routes.reduce((n, b) => n + b.route_ids.length, 0);
          notifySuccess(t('pipelines.deleted', { name: pipeline.name, count: removed }));
          onClose();
        },
      },
    );
  return (
    <Modal opened onClose={onClose} title={t('pipelines.deleteTitle', { name: pipeline.name })}>
      <Stack>
        {preview.isPending && <Loader size="sm" aria-label={t('common.loading')} />}
        {preview.isError && <ErrorAlert error={preview.error} onRetry={() => void preview.refetch()} />}
        {preview.data && (
          <div data-testid="pipeline-delete-preview">
            {count === 0 ? (
              <Text size="sm">{t('pipelines.deleteNoRoutes')}</Text>
            ) : (
              <Alert color="orange" title={t('pipelines.deleteRoutes', { count })}>
                <List size="sm">
                  {preview.data.map(({ bot, routes }) => (
                    <List.Item key={bot.uuid}>
                      {bot.name}: {routes.map((r) => t('pipelines.routeN', { n: r.order + 1 })).join(', ')}
                    </List.Item>
                  ))}
                </List>
              </Alert>
            )}
          </div>
        )}
        {remove.isError && <ErrorAlert error={remove.error} />}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            {t('common.cancel')}
          </Button>
          <Button color="red" onClick={confirm} disabled={!preview.data} loading={remove.isPending} data-testid="confirm-delete-pipeline">
            {count ? t('pipelines.deleteWithRoutes', { count }) : t('common.delete')}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
