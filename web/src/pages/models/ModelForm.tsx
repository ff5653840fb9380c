import { Button, Checkbox, Group, JsonInput, Modal, NumberInput, Stack, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useTranslation } from 'react-i18next';

import { jsonObject } from '../../api/json';
import type { Model, ModelInput, ModelKind, Provider } from '../../api/types';
import { ErrorAlert } from '../../components/ErrorAlert';
import { notifySuccess } from '../../components/notify';
import { applyServerErrors } from '../../forms/serverErrors';
import { useSaveModel } from './queries';

const ABILITIES = ['func_call', 'vision', 'reasoning'] as const;

interface Values {
  name: string;
  abilities: string[];
  context_length: number | string;
  extra_args: string;
}

function parseObject(text: string): Record<string, unknown> | null {
  if (!text.trim()) return {};
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

export function ModelFormModal({ kind, provider, model, onClose }: { kind: ModelKind; provider: Provider; model: Model | null; onClose: () => void }) {
  const { t } = useTranslation();
  const save = useSaveModel(kind);
  const form = useForm<Values>({
    initialValues: {
      name: model?.name ?? '',
      abilities: model?.abilities ?? [],
      context_length: model?.context_length ?? '',
      extra_args: model && Object.keys(model.extra_args).length > 0 ? JSON.stringify(model.extra_args, null, 2) : '',
    },
    validate: {
      name: (v) => (v.trim() ? null : t('common.required')),
      extra_args: (v) => (parseObject(v) ? null : t('models.extraArgsInvalid')),
      context_length: (v) => (v === '' || (Number.isInteger(Number(v)) && Number(v) > 0) ? null : t('form.integer')),
    },
  });

  const submit = (v: Values) => {
    const body: ModelInput = { provider_uuid: provider.uuid, name: v.name.trim(), extra_args: jsonObject(parseObject(v.extra_args) ?? {}) };
    if (kind === 'llm') {
      body.abilities = v.abilities;
      body.context_length = v.context_length === '' ? null : Number(v.context_length);
    }
    save.mutate(
      { uuid: model?.uuid ?? null, body },
      {
        onSuccess: () => {
          notifySuccess(model ? t('models.saved') : t('models.created'));
          onClose();
        },
        onError: (error) => applyServerErrors(form, error),
      },
    );
  };

  return (
    <Modal opened onClose={onClose} title={model ? t('models.editTitle', { name: model.name }) : t('models.addTitle', { kind: t(`models.kind.${kind}`), provider: provider.name })}>
      <form onSubmit={form.onSubmit(submit)} noValidate>
        <Stack>
          <TextInput label={t('models.name')} description={t('models.nameHint')} required data-autofocus {...form.getInputProps('name')} />
          {kind === 'llm' && (
            <>
              <Checkbox.Group label={t('models.abilities')} {...form.getInputProps('abilities')}>
                <Group mt={4}>
                  {ABILITIES.map((a) => (
                    <Checkbox key={a} value={a} label={t(`models.ability.${a}`)} />
                  ))}
                </Group>
              </Checkbox.Group>
              <NumberInput label={t('models.contextLength')} min={1} allowDecimal={false} {...form.getInputProps('context_length')} />
            </>
          )}
          <JsonInput label={t('models.extraArgs')} description={t('models.extraArgsHint')} autosize minRows={2} placeholder='{"temperature": 0.7}' {...form.getInputProps('extra_args')} />
          {save.isError && <ErrorAlert error={save.error} />}
          <Group justify="flex-end">
            <Button type="submit" loading={save.isPending}>
              {model ? t('common.save') : t('common.create')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
