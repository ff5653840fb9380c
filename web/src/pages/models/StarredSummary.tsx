import { Group, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Star } from 'lucide-react';
import { useTranslation } from 'react-i18next';

import { api, unwrap } from '../../api/client';
import { keys } from '../../api/keys';
import { useSession } from '../../app/session-context';

/** The Workspace's default (starred) LLM, by name: new pipelines use it. */
export function StarredSummary({ uuid }: { uuid: string | null }) {
  const { t } = useTranslation();
  const { ws } = useSession();
  const model = useQuery({
    queryKey: [...keys.models(ws), 'starred-detail', uuid],
    queryFn: () => unwrap(api.GET('/api/v1/provider/models/llm/{model_uuid}', { params: { path: { model_uuid: uuid ?? '' }, query: { include_secret: false } } })),
    enabled: uuid !== null,
  });
  const name = model.data?.model.name;
  return (
    <Group gap={6}>
      <Star size={16} aria-hidden fill={uuid ? 'currentColor' : 'none'} color="var(--mantine-color-yellow-6)" />
      <Text size="sm" data-testid="starred-summary">
        {uuid ? t('models.starredIs', { name: name ?? '…', provider: model.data?.model.provider?.name ?? '' }) : t('models.starredNone')}
      </Text>
    </Group>
  );
}
