// Which MCP servers' tools the pipeline's agent may call: all of them, or the chosen ones.
import { Badge, Button, Card, Checkbox, Group, Skeleton, Stack, Switch, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';

import type { PipelineExtensions } from '../../api/types';
import { ErrorAlert } from '../../components/ErrorAlert';
import { notifySuccess } from '../../components/notify';
import { useExtensions, useUpdateExtensions } from './queries';

export function Extensions({ pipelineUuid, canEdit }: { pipelineUuid: string; canEdit: boolean }) {
  const ext = useExtensions(pipelineUuid);
  if (ext.isPending) return <Skeleton h={120} />;
  if (ext.isError) return <ErrorAlert error={ext.error} onRetry={() => void ext.refetch()} />;
  return <ExtensionsForm key={JSON.stringify(ext.data.bound_mcp_servers) + String(ext.data.enable_all_mcp_servers)} data={ext.data} pipelineUuid={pipelineUuid} canEdit={canEdit} />;
}

function ExtensionsForm({ data, pipelineUuid, canEdit }: { data: PipelineExtensions; pipelineUuid: string; canEdit: boolean }) {
  const { t } = useTranslation();
  const [all, setAll] = useState(data.enable_all_mcp_servers);
  const [chosen, setChosen] = useState<string[]>(data.bound_mcp_servers);
  const save = useUpdateExtensions(pipelineUuid);
  const servers = data.available_mcp_servers;
  return (
    <Card withBorder padding="md" component="section" aria-labelledby="ext-title">
      <Stack>
        <Title order={2} size="h4" id="ext-title">
          {t('extensions.title')}
        </Title>
        <Text size="sm" c="dimmed">
          {t('extensions.hint')}
        </Text>
        <Switch label={t('extensions.all')} checked={all} onChange={(e) => setAll(e.currentTarget.checked)} disabled={!canEdit} />
        {servers.length === 0 ? (
          <Text size="sm" c="dimmed" data-testid="extensions-empty">
            {t('extensions.empty')}
          </Text>
        ) : (
          <Checkbox.Group value={all ? servers.map((s) => s.uuid) : chosen} onChange={setChosen} label={t('extensions.servers')}>
            <Stack gap="xs" mt="xs">
              {servers.map((s) => (
                <Group key={s.uuid} gap="xs">
                  <Checkbox value={s.uuid} label={s.name} disabled={all || !canEdit} />
                  <Badge size="xs" variant="light">
                    {s.mode}
                  </Badge>
                  {!s.enable && (
                    <Badge size="xs" color="gray">
                      {t('extensions.serverDisabled')}
                    </Badge>
                  )}
                  {s.runtime_info?.error_message && (
                    <Text size="xs" c="red">
                      {s.runtime_info.error_message}
                    </Text>
                  )}
                </Group>
              ))}
            </Stack>
          </Checkbox.Group>
        )}
        {canEdit && (
          <Group justify="flex-end">
            <Button loading={save.isPending} onClick={() => save.mutate({ enable_all_mcp_servers: all, bound_mcp_servers: chosen }, { onSuccess: () => notifySuccess(t('extensions.saved')) })}>
              {t('common.save')}
            </Button>
          </Group>
        )}
      </Stack>
    </Card>
  );
}
