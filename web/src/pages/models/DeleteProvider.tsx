// Deleting a provider names exactly what goes before anything is deleted: the provider, each
// of its models by kind, whether the default model is among them, and the pipelines that use
// them (they keep running without that model until edited).
import { Alert, Button, Group, List, Loader, Modal, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { TriangleAlert } from 'lucide-react';
import { useTranslation } from 'react-i18next';

import { MODEL_KINDS, type Provider } from '../../api/types';
import { ErrorAlert } from '../../components/ErrorAlert';
import { notifySuccess } from '../../components/notify';
import { allModelsOf, allPipelines, pipelinesUsing, useDeleteProvider, useStarred } from './queries';

export function DeleteProviderModal({ provider, onClose }: { provider: Provider; onClose: () => void }) {
  const { t } = useTranslation();
  const starred = useStarred();
  const remove = useDeleteProvider();
  const preview = useQuery({
    queryKey: ['delete-preview', provider.uuid],
    queryFn: async () => {
      const [llm, embedding, rerank] = await Promise.all(MODEL_KINDS.map((k) => allModelsOf(k, provider.uuid)));
      const models = { llm: llm ?? [], embedding: embedding ?? [], rerank: rerank ?? [] };
      const uuids = MODEL_KINDS.flatMap((k) => models[k].map((m) => m.uuid));
      const pipelines = uuids.length ? pipelinesUsing(await allPipelines(), uuids) : [];
      return { models, uuids, pipelines };
    },
    gcTime: 0,
    staleTime: 0,
  });

  const confirm = () => {
    if (!preview.data) return;
    remove.mutate(
      { uuid: provider.uuid, cascade: preview.data.uuids.length > 0 },
      {
        onSuccess: (report) => {
          const count = report.deleted.llm.length + report.deleted.embedding.length + report.deleted.rerank.length;
          notifySuccess(t('providers.deleted', { name: provider.name, count }));
          onClose();
        },
      },
    );
  };

  const data = preview.data;
  const count = data?.uuids.length ?? 0;
  const starredGoes = data && starred.data?.uuid ? data.uuids.includes(starred.data.uuid) : false;

  return (
    <Modal opened onClose={onClose} size="lg" title={t('providers.deleteTitle', { name: provider.name })}>
      <Stack>
        {preview.isPending && <Loader size="sm" aria-label={t('common.loading')} />}
        {preview.isError && <ErrorAlert error={preview.error} onRetry={() => void preview.refetch()} />}
        {data && (
          <div data-testid="delete-preview">
            <Text size="sm" mb="xs">
              {count ? t('providers.deleteWithModels', { count }) : t('providers.deleteAlone')}
            </Text>
            {MODEL_KINDS.filter((k) => data.models[k].length > 0).map((k) => (
              <div key={k}>
                <Text size="sm" fw={600}>
                  {t(`models.kind.${k}`)} ({data.models[k].length})
                </Text>
                <List size="sm" mb="xs">
                  {data.models[k].map((m) => (
                    <List.Item key={m.uuid}>
                      <Text span ff="monospace" size="sm">
                        {m.name}
                      </Text>
                    </List.Item>
                  ))}
                </List>
              </div>
            ))}
            {starredGoes && (
              <Alert color="yellow" icon={<TriangleAlert size={16} />} mb="xs">
                {t('providers.deleteClearsStar')}
              </Alert>
            )}
            {data.pipelines.length > 0 && (
              <Alert color="orange" icon={<TriangleAlert size={16} />} title={t('providers.deletePipelines', { count: data.pipelines.length })}>
                <List size="sm">
                  {data.pipelines.map((p) => (
                    <List.Item key={p.uuid}>{p.name}</List.Item>
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
          <Button color="red" onClick={confirm} disabled={!data} loading={remove.isPending} data-testid="confirm-delete">
            {count ? t('providers.deleteConfirmAll', { count }) : t('common.delete')}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
