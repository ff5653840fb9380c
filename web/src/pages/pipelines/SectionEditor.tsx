// One section of the pipeline config (a tab): its stages' items through the one form renderer,
// the model selector and prompt editor as custom renderers, saved alone (the server replaces
// that section and validates the merged config; its field errors land at their item).
import { ActionIcon, Button, Card, Group, MultiSelect, Select, Stack, Text, Textarea, Title } from '@mantine/core';
import { useForm, type UseFormReturnType } from '@mantine/form';
import { Plus, Trash2 } from 'lucide-react';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';

import { ApiError } from '../../api/errors';
import { jsonObject } from '../../api/json';
import type { Pipeline, SectionMeta } from '../../api/types';
import { ErrorAlert } from '../../components/ErrorAlert';
import { notifySuccess } from '../../components/notify';
import { ConfigForm, type CustomRenderer, validateFields } from '../../forms/ConfigForm';
import { localize } from '../../forms/fields';
import { activeStages, itemPathOf, sectionInitial, sectionSubmitted, stageForms } from './sectionValues';
import { useUpdatePipeline } from './queries';

type Values = Record<string, unknown>;

function get(values: unknown, path: string): unknown {
  let node = values;
  for (const part of path.split('.')) node = node && typeof node === 'object' ? (node as Record<string, unknown>)[part] : undefined;
  return node;
}

export function SectionEditor({ pipeline, section, canEdit }: { pipeline: Pipeline; section: SectionMeta; canEdit: boolean }) {
  const { t, i18n } = useTranslation();
  const stages = useMemo(() => stageForms(section), [section]);
  const save = useUpdatePipeline(pipeline.uuid);
  const form = useForm<Values>({
    mode: 'controlled',
    initialValues: sectionInitial(pipeline.config, section.name, stages),
    validate: (values) => Object.assign({}, ...activeStages(stages, values).map((s) => validateFields(s.fields, (get(values, s.path) ?? {}) as Record<string, unknown>, t, s.path))) as Record<string, string>,
  });

  // The promise, not mutate's callbacks: a save refetches the pipeline, whose new `updated_at`
  // remounts this editor (its key), and callbacks of an unmounted caller never fire.
  const submit = (values: Values) =>
    save.mutateAsync({ config: jsonObject({ [section.name]: sectionSubmitted(values, section.name, stages) }) }).then(
      () => {
        notifySuccess(t('pipelines.sectionSaved', { section: localize(section.label, i18n.language) }));
        form.resetDirty();
      },
      (error: unknown) => {
        if (!(error instanceof ApiError)) return;
        for (const { field, message } of error.fieldErrors) {
          const at = itemPathOf(field, stages);
          if (at) form.setFieldError(at, message);
        }
      },
    );

  const renderers = useMemo(() => customRenderers(form, t), [form, t]);
  const placed = Object.keys(form.errors).length > 0;
  return (
    <form onSubmit={form.onSubmit(submit)} noValidate data-testid={`section-${section.name}`}>
      <Stack>
        {activeStages(stages, form.getValues()).map((stage) => (
          <Card key={stage.path} withBorder padding="md" component="fieldset" disabled={!canEdit} style={{ minWidth: 0 }}>
            <Title order={2} size="h5" mb="xs" component="legend">
              {localize(stage.label, i18n.language)}
            </Title>
            <ConfigForm form={form} fields={stage.fields} prefix={stage.path} renderers={renderers} />
          </Card>
        ))}
        {save.isError && !placed && <ErrorAlert error={save.error} />}
        {canEdit && (
          <Group justify="flex-end" pos="sticky" bottom={0} py="xs" style={{ background: 'var(--mantine-color-body)' }}>
            <Button variant="default" onClick={() => form.reset()} disabled={!form.isDirty()}>
              {t('pipelines.discard')}
            </Button>
            <Button type="submit" loading={save.isPending} data-testid={`save-${section.name}`}>
              {t('pipelines.saveSection', { section: localize(section.label, i18n.language) })}
            </Button>
          </Group>
        )}
      </Stack>
    </form>
  );
}

interface Selection {
  primary: string;
  fallbacks: string[];
}
interface PromptMessage {
  role: string;
  content: string;
}

function customRenderers(form: UseFormReturnType<Values>, t: (k: string, o?: Record<string, unknown>) => string): Record<string, CustomRenderer> {
  return {
    'model-fallback-selector': ({ field, path, label, description }) => {
      const value = (get(form.getValues(), path) ?? { primary: '', fallbacks: [] }) as Selection;
      const options = (field.options ?? []).map((o) => ({ value: o.name, label: o.label.en_US }));
      const error = form.errors[path] ?? form.errors[`${path}.primary`] ?? form.errors[`${path}.fallbacks`];
      return (
        <Stack gap={6}>
          <Select
            label={label}
            description={description || t('pipelines.modelHint')}
            data={options}
            value={value.primary || null}
            onChange={(v) => form.setFieldValue(path, { ...value, primary: v ?? '' })}
            placeholder={options.length ? t('pipelines.pickModel') : t('pipelines.noModels')}
            error={error}
            data-field={field.name}
          />
          <MultiSelect
            label={t('pipelines.fallbacks')}
            data={options.filter((o) => o.value !== value.primary)}
            value={value.fallbacks}
            onChange={(v) => form.setFieldValue(path, { ...value, fallbacks: v })}
            maxValues={10}
          />
        </Stack>
      );
    },
    'prompt-editor': ({ path, label }) => {
      const messages = (get(form.getValues(), path) ?? []) as PromptMessage[];
      const set = (next: PromptMessage[]) => form.setFieldValue(path, next);
      return (
        <Stack gap={6}>
          <Text size="sm" fw={500}>
            {label}
          </Text>
          {messages.map((m, i) => (
            <Group key={i} align="flex-start" wrap="nowrap">
              <Select
                aria-label={t('pipelines.promptRole', { n: i + 1 })}
                w={130}
                data={['system', 'user', 'assistant'].map((r) => ({ value: r, label: t(`pipelines.role.${r}`) }))}
                value={m.role}
                allowDeselect={false}
                onChange={(v) => set(messages.map((x, j) => (j === i ? { ...x, role: v ?? 'system' } : x)))}
              />
              <Textarea
                aria-label={t('pipelines.promptContent', { n: i + 1 })}
                style={{ flex: 1 }}
                autosize
                minRows={2}
                value={m.content}
                onChange={(e) => {
                  const content = e.currentTarget.value;
                  set(messages.map((x, j) => (j === i ? { ...x, content } : x)));
                }}
              />
              <ActionIcon variant="subtle" color="red" mt={6} aria-label={t('pipelines.promptRemove', { n: i + 1 })} onClick={() => set(messages.filter((_, j) => j !== i))}>
                <Trash2 size={16} />
              </ActionIcon>
            </Group>
          ))}
          {form.errors[path] && (
            <Text size="xs" c="red">
              {form.errors[path]}
            </Text>
          )}
          <Group>
            <Button size="compact-sm" variant="subtle" leftSection={<Plus size={14} />} onClick={() => set([...messages, { role: 'user', content: '' }])}>
              {t('pipelines.promptAdd')}
            </Button>
          </Group>
        </Stack>
      );
    },
  };
}
