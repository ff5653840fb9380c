// Create or edit a bot: its name, the adapter (on create) and the adapter's own form through
// the one form renderer; the server's field errors land at their field.
import { Button, Group, Select, Stack, Switch, Textarea, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { jsonObject } from '../../api/json';
import type { Adapter, BotDetail } from '../../api/types';
import { ErrorAlert } from '../../components/ErrorAlert';
import { notifySuccess } from '../../components/notify';
import { ConfigForm, validateFields } from '../../forms/ConfigForm';
import { fromConfigField, initialValues, localize, submittedValues } from '../../forms/fields';
import { applyServerErrors } from '../../forms/serverErrors';
import { useCreateBot, useUpdateBot } from './queries';

interface Values {
  name: string;
  description: string;
  enable: boolean;
  adapter_config: Record<string, unknown>;
}

interface Props {
  adapters: Adapter[];
  /** The bot to edit; null to create one. */
  bot: BotDetail | null;
  onDone: (uuid: string) => void;
  onCancel?: () => void;
}

export function BotForm({ adapters, bot, onDone, onCancel }: Props) {
  const { t, i18n } = useTranslation();
  const [adapterName, setAdapterName] = useState(bot?.adapter ?? adapters[0]?.name ?? '');
  const adapter = adapters.find((a) => a.name === adapterName) ?? null;
  return (
    <Stack>
      {!bot && (
        <Select
          label={t('bots.adapter')}
          required
          allowDeselect={false}
          value={adapterName}
          onChange={(v) => v && setAdapterName(v)}
          data={adapters.map((a) => ({ value: a.name, label: localize(a.label, i18n.language) }))}
          description={adapter ? localize(adapter.description, i18n.language) : undefined}
        />
      )}
      {adapter ? (
        <AdapterForm key={adapter.name} adapter={adapter} bot={bot} onDone={onDone} onCancel={onCancel} />
      ) : (
        <ErrorAlert error={new Error(t('bots.unknownAdapter', { name: bot?.adapter ?? '' }))} />
      )}
    </Stack>
  );
}

function AdapterForm({ adapter, bot, onDone, onCancel }: { adapter: Adapter; bot: BotDetail | null; onDone: (uuid: string) => void; onCancel?: () => void }) {
  const { t } = useTranslation();
  const fields = useMemo(() => adapter.spec.config.map(fromConfigField), [adapter]);
  const create = useCreateBot();
  const update = useUpdateBot();
  const stored = bot ? { ...(bot.adapter_config as Record<string, unknown>), webhook_url: bot.adapter_runtime_values.webhook_full_url, embed_code: bot.adapter_runtime_values.embed_code } : null;
  const form = useForm<Values>({
    mode: 'controlled',
    initialValues: {
      name: bot?.name ?? '',
      description: bot?.description ?? '',
      enable: bot?.enable ?? true,
      adapter_config: initialValues(fields, stored),
    },
    validate: (values) => ({
      ...(values.name.trim() ? {} : { name: t('common.required') }),
      ...validateFields(fields, values.adapter_config, t, 'adapter_config'),
    }),
  });
  const pending = create.isPending || update.isPending;
  const error = create.error ?? update.error;

  const submit = (values: Values) => {
    const adapterConfig = jsonObject(submittedValues(fields, values.adapter_config));
    const onError = (e: unknown) => applyServerErrors(form, e, { prefixes: ['adapter_config.'] });
    if (bot) {
      update.mutate(
        { uuid: bot.uuid, body: { name: values.name.trim(), description: values.description, adapter_config: adapterConfig } },
        {
          onSuccess: () => {
            notifySuccess(t('bots.saved'));
            form.resetDirty();
            onDone(bot.uuid);
          },
          onError,
        },
      );
    } else {
      create.mutate(
        { name: values.name.trim(), description: values.description, enable: values.enable, adapter: adapter.name, adapter_config: adapterConfig },
        {
          onSuccess: (created) => {
            notifySuccess(t('bots.created'));
            onDone(created.uuid);
          },
          onError,
        },
      );
    }
  };

  return (
    <form onSubmit={form.onSubmit(submit)} noValidate>
      <Stack>
        <TextInput label={t('bots.name')} required maxLength={255} {...form.getInputProps('name')} data-field="name" />
        <Textarea label={t('bots.description')} autosize minRows={1} {...form.getInputProps('description')} />
        {!bot && <Switch label={t('bots.enableOnCreate')} {...form.getInputProps('enable', { type: 'checkbox' })} />}
        <ConfigForm form={form} fields={fields} prefix="adapter_config" />
        {error && Object.keys(form.errors).length === 0 && <ErrorAlert error={error} />}
        <Group justify="flex-end">
          {onCancel && (
            <Button variant="default" onClick={onCancel}>
              {t('common.cancel')}
            </Button>
          )}
          <Button type="submit" loading={pending}>
            {bot ? t('common.save') : t('common.create')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
