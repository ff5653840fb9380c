// One pipeline: a tab per config section from the metadata (each saved alone), its
// extensions, and the debug chat.
import { Anchor, Badge, Breadcrumbs, Group, Skeleton, Stack, Tabs, Text, Title } from '@mantine/core';
import { Star } from 'lucide-react';
import { lazy, Suspense } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useParams, useSearchParams } from 'react-router';

import { useSession } from '../../app/session-context';
import { ErrorAlert } from '../../components/ErrorAlert';
import { localize } from '../../forms/fields';
import { usePipeline, usePipelineMetadata } from './queries';
import { SectionEditor } from './SectionEditor';

import { addArea } from '../../i18n';
import strings from '../../i18n/locales/en_US/pipelines.json';

// This area's strings come with this chunk (and, in Chinese, before the page renders).
await addArea('pipelines', strings);

// The tabs not shown first are their own chunks.
const DebugChat = lazy(() => import('./DebugChat').then((m) => ({ default: m.DebugChat })));
const Extensions = lazy(() => import('./Extensions').then((m) => ({ default: m.Extensions })));

export default function PipelinePage() {
  const { uuid = '' } = useParams();
  const { t, i18n } = useTranslation();
  const { can } = useSession();
  const pipeline = usePipeline(uuid);
  const metadata = usePipelineMetadata();
  const [params, setParams] = useSearchParams();
  const sections = metadata.data?.configs ?? [];
  const tab = params.get('tab') ?? sections[0]?.name ?? 'chat';

  if (pipeline.isError) return <ErrorAlert error={pipeline.error} onRetry={() => void pipeline.refetch()} />;
  if (metadata.isError) return <ErrorAlert error={metadata.error} onRetry={() => void metadata.refetch()} />;
  if (!pipeline.data || !metadata.data) return <Skeleton h={240} />;
  const p = pipeline.data.pipeline;
  const canEdit = can('resource.manage');

  return (
    <Stack>
      <Breadcrumbs>
        <Anchor component={Link} to="/pipelines" size="sm">
          {t('nav.pipelines')}
        </Anchor>
        <Text size="sm">{p.name}</Text>
      </Breadcrumbs>
      <Group gap="xs">
        <Title order={1} size="h2">
          {p.emoji} {p.name}
        </Title>
        {p.is_default && (
          <Badge leftSection={<Star size={12} />} variant="light">
            {t('pipelines.default')}
          </Badge>
        )}
      </Group>
      {p.description && (
        <Text size="sm" c="dimmed">
          {p.description}
        </Text>
      )}
      <Tabs value={tab} onChange={(v) => v && setParams({ tab: v }, { replace: true })} keepMounted={false}>
        <Tabs.List>
          {sections.map((s) => (
            <Tabs.Tab key={s.name} value={s.name}>
              {localize(s.label, i18n.language)}
            </Tabs.Tab>
          ))}
          <Tabs.Tab value="extensions">{t('extensions.tab')}</Tabs.Tab>
          <Tabs.Tab value="chat">{t('chat.tab')}</Tabs.Tab>
        </Tabs.List>
        {sections.map((s) => (
          <Tabs.Panel key={s.name} value={s.name} pt="md">
            <SectionEditor key={`${s.name}-${p.updated_at}`} pipeline={p} section={s} canEdit={canEdit} />
          </Tabs.Panel>
        ))}
        <Tabs.Panel value="extensions" pt="md">
          <Suspense fallback={<Skeleton h={160} />}>
            <Extensions pipelineUuid={p.uuid} canEdit={canEdit} />
          </Suspense>
        </Tabs.Panel>
        <Tabs.Panel value="chat" pt="md">
          {can('runtime.operate') ? (
            <Suspense fallback={<Skeleton h={160} />}>
              <DebugChat pipeline={p} />
            </Suspense>
          ) : <Text c="dimmed">{t('chat.noPermission')}</Text>}
        </Tabs.Panel>
      </Tabs>
    </Stack>
  );
}
