import { ActionIcon, Badge, Button, Card, Group, Stack, Tabs, Text, Tooltip } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { Pencil, Plus, Trash2 } from 'lucide-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';

import { MODEL_KINDS, type ModelKind, type Provider, type Requester, SUPPORT_TYPE } from '../../api/types';
import { useSession } from '../../app/session-context';
import { localize } from '../../forms/fields';
import { DeleteProviderModal, Dialog, ModelFormModal, ProviderFormModal } from './dialogs';
import { BrandIcon, hasBrand, presetOf, RequesterIcon } from './icons';
import { ModelTable } from './ModelTable';

const COUNT: Record<ModelKind, 'llm_count' | 'embedding_count' | 'rerank_count'> = {
  llm: 'llm_count',
  embedding: 'embedding_count',
  rerank: 'rerank_count',
};

export function ProviderCard({ provider, requesters, starred }: { provider: Provider; requesters: Requester[]; starred: string | null }) {
  const { t, i18n } = useTranslation();
  const { can } = useSession();
  const requester = requesters.find((r) => r.name === provider.requester);
  const kinds = MODEL_KINDS.filter((k) => requester?.support_type.includes(SUPPORT_TYPE[k]) ?? (provider[COUNT[k]] ?? 0) > 0);
  const [kind, setKind] = useState<ModelKind>(kinds[0] ?? 'llm');
  const [editing, edit] = useDisclosure();
  const [deleting, del] = useDisclosure();
  const [adding, add] = useDisclosure();
  const preset = presetOf(provider.base_url, requester?.spec.presets ?? []);
  const total = MODEL_KINDS.reduce((n, k) => n + (provider[COUNT[k]] ?? 0), 0);

  return (
    <Card withBorder padding="md" component="section" aria-label={provider.name} data-testid={`provider-${provider.name}`}>
      <Group justify="space-between" wrap="nowrap" align="flex-start">
        <Group wrap="nowrap" gap="sm" style={{ minWidth: 0 }}>
          {preset && hasBrand(preset) ? <BrandIcon name={preset} size={28} /> : <RequesterIcon name={provider.requester} />}
          <div style={{ minWidth: 0 }}>
            <Text fw={600} truncate component="h2" size="md" m={0}>
              {provider.name}
            </Text>
            <Text size="xs" c="dimmed" truncate>
              {requester ? localize(requester.label, i18n.language) : provider.requester} · {provider.base_url}
            </Text>
          </div>
        </Group>
        <Group gap={4} wrap="nowrap">
          <Badge variant="light" visibleFrom="xs">
            {t('providers.modelCount', { count: total })}
          </Badge>
          {can('provider_secret.manage') && (
            <Tooltip label={t('common.edit')}>
              <ActionIcon variant="subtle" aria-label={t('providers.editNamed', { name: provider.name })} onClick={edit.open}>
                <Pencil size={16} />
              </ActionIcon>
            </Tooltip>
          )}
          {can('resource.manage') && (
            <Tooltip label={t('common.delete')}>
              <ActionIcon variant="subtle" color="red" aria-label={t('providers.deleteNamed', { name: provider.name })} onClick={del.open}>
                <Trash2 size={16} />
              </ActionIcon>
            </Tooltip>
          )}
        </Group>
      </Group>
      <Tabs value={kind} onChange={(v) => v && setKind(v as ModelKind)} mt="sm" keepMounted={false}>
        <Group justify="space-between" wrap="nowrap">
          <Tabs.List>
            {kinds.map((k) => (
              <Tabs.Tab key={k} value={k}>
                {t(`models.kind.${k}`)} ({provider[COUNT[k]] ?? 0})
              </Tabs.Tab>
            ))}
          </Tabs.List>
          {can('provider_secret.manage') && (
            <Button size="compact-sm" variant="light" leftSection={<Plus size={14} />} onClick={add.open}>
              {t('models.add')}
            </Button>
          )}
        </Group>
        {kinds.map((k) => (
          <Tabs.Panel key={k} value={k} pt="xs">
            <Stack gap={0}>
              <ModelTable kind={k} provider={provider} starred={starred} />
            </Stack>
          </Tabs.Panel>
        ))}
      </Tabs>
      <Dialog>
        {editing && <ProviderFormModal opened onClose={edit.close} requesters={requesters} provider={provider} />}
        {deleting && <DeleteProviderModal provider={provider} onClose={del.close} />}
        {adding && <ModelFormModal kind={kind} provider={provider} model={null} onClose={add.close} />}
      </Dialog>
    </Card>
  );
}
