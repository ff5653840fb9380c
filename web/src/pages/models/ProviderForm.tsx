// Create or edit a provider: the requester (on create), a preset, then the requester's own form
// (base URL and config fields through the form renderer) and the API keys.
import { ActionIcon, Button, Card, Group, Modal, PasswordInput, SimpleGrid, Stack, Text, TextInput, Tooltip, UnstyledButton } from '@mantine/core';
import { useForm } from '@mantine/form';
import { ArrowLeft, Plus, Trash2 } from 'lucide-react';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { jsonObject } from '../../api/json';
import type { Provider, Requester } from '../../api/types';
import { ErrorAlert } from '../../components/ErrorAlert';
import { notifySuccess } from '../../components/notify';
import { ConfigForm, validateFields } from '../../forms/ConfigForm';
import { fromConfigField, initialValues, localize, MASK, submittedValues } from '../../forms/fields';
import { applyServerErrors } from '../../forms/serverErrors';
import { BrandIcon, RequesterIcon } from './icons';
import { useSaveProvider } from './queries';

interface Props {
  opened: boolean;
  onClose: () => void;
  requesters: Requester[];
  /** The provider to edit; null to create one. */
  provider: Provider | null;
}

export function ProviderFormModal({ opened, onClose, requesters, provider }: Props) {
  const { t } = useTranslation();
  const [picked, setPicked] = useState<Requester | null>(null);
  const requester = provider ? (requesters.find((r) => r.name === provider.requester) ?? null) : picked;
  const close = () => {
    setPicked(null);
    onClose();
  };
  return (
    <Modal opened={opened} onClose={close} size="lg" title={provider ? t('providers.edit', { name: provider.name }) : t('providers.add')}>
      {requester ? (
        <ProviderForm key={requester.name} requester={requester} provider={provider} onDone={close} onBack={provider ? null : () => setPicked(null)} />
      ) : provider ? (
        <ErrorAlert error={new Error(t('providers.unknownRequester', { name: provider.requester }))} />
      ) : (
        <RequesterPicker requesters={requesters} onPick={setPicked} />
      )}
    </Modal>
  );
}

function RequesterPicker({ requesters, onPick }: { requesters: Requester[]; onPick: (r: Requester) => void }) {
  const { t, i18n } = useTranslation();
  return (
    <Stack>
      <Text size="sm">{t('providers.pickRequester')}</Text>
      {requesters.map((r) => (
        <UnstyledButton key={r.name} onClick={() => onPick(r)} data-testid={`requester-${r.name}`}>
          <Card withBorder padding="sm" className="hover-card">
            <Group wrap="nowrap" align="flex-start">
              <RequesterIcon name={r.name} />
              <div>
                <Text fw={500}>{localize(r.label, i18n.language)}</Text>
                <Text size="xs" c="dimmed">
                  {localize(r.description, i18n.language)}
                </Text>
                <Text size="xs" c="dimmed" mt={4}>
                  {r.support_type.map((s) => t(`models.support.${s}`, { defaultValue: s })).join(' · ')}
                </Text>
              </div>
            </Group>
          </Card>
        </UnstyledButton>
      ))}
    </Stack>
  );
}

interface Values {
  name: string;
  api_keys: string[];
  config: Record<string, unknown>;
}

function ProviderForm({ requester, provider, onDone, onBack }: { requester: Requester; provider: Provider | null; onDone: () => void; onBack: (() => void) | null }) {
  const { t, i18n } = useTranslation();
  const fields = useMemo(() => requester.spec.config.map(fromConfigField), [requester]);
  const save = useSaveProvider();
  const form = useForm<Values>({
    mode: 'controlled',
    initialValues: {
      name: provider?.name ?? '',
      api_keys: provider ? [...provider.api_keys] : [''],
      config: initialValues(fields, provider ? { ...provider.config, base_url: provider.base_url } : null),
    },
    validate: (values) => ({
      ...(values.name.trim() ? {} : { name: t('common.required') }),
      ...validateFields(fields, values.config, t, 'config'),
    }),
  });

  const applyPreset = (preset: Requester['spec']['presets'][number]) => {
    form.setFieldValue('config.base_url', preset.base_url);
    const current = form.getValues().name.trim();
    if (!current || requester.spec.presets.some((p) => p.label === current)) form.setFieldValue('name', preset.label);
  };

  const submit = (values: Values) => {
    const config = submittedValues(fields.filter((f) => f.name !== 'base_url'), values.config);
    const baseUrl = typeof values.config.base_url === 'string' ? values.config.base_url.trim() : '';
    save.mutate(
      {
        uuid: provider?.uuid ?? null,
        body: {
          name: values.name.trim(),
          requester: requester.name,
          base_url: baseUrl,
          api_keys: values.api_keys.map((k) => k.trim()).filter(Boolean),
          config: jsonObject(config),
        },
      },
      {
        onSuccess: () => {
          notifySuccess(provider ? t('providers.saved') : t('providers.created'));
          onDone();
        },
        onError: (error) => applyServerErrors(form, error, { aliases: { base_url: 'config.base_url' } }),
      },
    );
  };

  const keysList = form.getValues().api_keys;
  // `***` keeps the stored key at the same position, so a masked key can only go while no
  // masked key follows it (else the later one would take its place).
  const removable = (i: number) => !keysList.slice(i + 1).some((k) => k === MASK);

  return (
    <form onSubmit={form.onSubmit(submit)} noValidate>
      <Stack>
        {onBack && (
          <Group>
            <Button variant="subtle" size="compact-sm" leftSection={<ArrowLeft size={14} />} onClick={onBack}>
              {localize(requester.label, i18n.language)}
            </Button>
          </Group>
        )}
        {requester.spec.presets.length > 0 && (
          <div>
            <Text size="sm" fw={500} mb={6}>
              {t('providers.presets')}
            </Text>
            <SimpleGrid cols={{ base: 2, xs: 3 }} spacing={6}>
              {requester.spec.presets.map((p) => (
                <Button key={p.name} variant="default" size="xs" justify="flex-start" leftSection={<BrandIcon name={p.name} size={16} />} onClick={() => applyPreset(p)} data-testid={`preset-${p.name}`}>
                  {p.label}
                </Button>
              ))}
            </SimpleGrid>
          </div>
        )}
        <TextInput label={t('providers.name')} required maxLength={255} {...form.getInputProps('name')} data-field="name" />
        <ConfigForm form={form} fields={fields} prefix="config" />
        <Stack gap={6}>
          <Text size="sm" fw={500}>
            {t('providers.apiKeys')}
          </Text>
          {keysList.map((_, i) => (
            <Group key={form.key(`api_keys.${i}`)} gap="xs" wrap="nowrap" align="flex-start">
              <PasswordInput
                style={{ flex: 1 }}
                aria-label={t('providers.apiKeyN', { n: i + 1 })}
                placeholder="sk-…"
                autoComplete="off"
                description={keysList[i] === MASK ? t('form.secretKept') : undefined}
                {...form.getInputProps(`api_keys.${i}`)}
                data-field={`api_keys.${i}`}
              />
              <Tooltip label={removable(i) ? t('providers.removeKey') : t('providers.removeKeyOrder')}>
                <ActionIcon variant="subtle" color="red" size="lg" aria-label={t('providers.removeKey')} disabled={!removable(i)} onClick={() => form.removeListItem('api_keys', i)}>
                  <Trash2 size={16} />
                </ActionIcon>
              </Tooltip>
            </Group>
          ))}
          <Group>
            <Button variant="subtle" size="compact-sm" leftSection={<Plus size={14} />} onClick={() => form.insertListItem('api_keys', '')}>
              {t('providers.addKey')}
            </Button>
          </Group>
        </Stack>
        {save.isError && <ErrorAlert error={save.error} />}
        <Group justify="flex-end">
          <Button type="submit" loading={save.isPending}>
            {provider ? t('common.save') : t('common.create')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
