// One plugin: its config (the form its manifest declares; secrets stay `***`), its Tools with
// what the model is told about them, its readme and this replica's runtime log lines for it.
import { Alert, Button, Code, Group, Modal, ScrollArea, Skeleton, Stack, Table, Tabs, Text } from '@mantine/core';
import { useForm, type UseFormReturnType } from '@mantine/form';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';

import { jsonObject } from '../../api/json';
import { useSession } from '../../app/session-context';
import { ErrorAlert } from '../../components/ErrorAlert';
import { errorText, notifySuccess } from '../../components/notify';
import { ConfigForm, type CustomRenderer, validateFields } from '../../forms/ConfigForm';
import { type FormField, initialValues, localize, submittedValues } from '../../forms/fields';
import { applyServerErrors } from '../../forms/serverErrors';
import { FileField } from './FileField';
import { componentsOf, configFields, metadataOf, type Plugin } from './model';
import { usePluginConfig, usePluginLogs, usePluginReadme, useSavePluginConfig } from './queries';

interface Props {
  id: string;
  plugin: Plugin | undefined;
  manage: boolean;
  onClose: () => void;
}

export default function PluginDetail({ id, plugin, manage, onClose }: Props) {
  const { t, i18n } = useTranslation();
  const { can } = useSession();
  const [tab, setTab] = useState<string | null>('config');
  const meta = plugin ? metadataOf(plugin) : null;
  const title = (meta && localize(meta.label, i18n.language)) || id;
  return (
    <Modal opened onClose={onClose} title={title} size="xl">
      {plugin ? (
        <Tabs value={tab} onChange={setTab} keepMounted={false}>
          <Tabs.List>
            <Tabs.Tab value="config">{t('plugins.tabConfig')}</Tabs.Tab>
            <Tabs.Tab value="tools">{t('plugins.tools')}</Tabs.Tab>
            <Tabs.Tab value="readme">{t('plugins.tabReadme')}</Tabs.Tab>
            {can('audit.view') && <Tabs.Tab value="logs">{t('plugins.tabLogs')}</Tabs.Tab>}
          </Tabs.List>
          <Tabs.Panel value="config" pt="md">
            <ConfigTab id={id} fields={configFields(plugin)} manage={manage} />
          </Tabs.Panel>
          <Tabs.Panel value="tools" pt="md">
            <ToolsTab plugin={plugin} />
          </Tabs.Panel>
          <Tabs.Panel value="readme" pt="md">
            <ReadmeTab id={id} />
          </Tabs.Panel>
          <Tabs.Panel value="logs" pt="md">
            <LogsTab id={id} />
          </Tabs.Panel>
        </Tabs>
      ) : (
        <Skeleton h={160} />
      )}
    </Modal>
  );
}

function ConfigTab({ id, fields, manage }: { id: string; fields: FormField[]; manage: boolean }) {
  const { t } = useTranslation();
  const config = usePluginConfig(id);
  if (config.isError) return <ErrorAlert error={config.error} onRetry={() => void config.refetch()} />;
  if (!config.data) return <Skeleton h={120} />;
  if (fields.length === 0) return <Text size="sm" c="dimmed">{t('plugins.noConfig')}</Text>;
  return <ConfigEditor id={id} fields={fields} stored={config.data.config} manage={manage} />;
}

function ConfigEditor({ id, fields, stored, manage }: { id: string; fields: FormField[]; stored: Record<string, unknown>; manage: boolean }) {
  const { t } = useTranslation();
  const save = useSavePluginConfig(id);
  // Controlled: the file fields render from the current values.
  const form = useForm<{ config: Record<string, unknown> }>({
    mode: 'controlled',
    initialValues: { config: initialValues(fields, stored) },
    validate: (values) => validateFields(fields, values.config, t, 'config'),
  });
  const submit = (values: { config: Record<string, unknown> }) =>
    save.mutate(jsonObject(submittedValues(fields, values.config)), {
      onSuccess: () => notifySuccess(t('plugins.configSaved')),
      onError: (e) => applyServerErrors(form, e, { prefixes: ['config.'] }),
    });
  return (
    <form onSubmit={form.onSubmit(submit)} noValidate>
      <Stack>
        <fieldset disabled={!manage} style={{ border: 0, padding: 0, margin: 0 }}>
          <ConfigForm form={form} fields={fields} prefix="config" renderers={fileRenderers(form)} />
        </fieldset>
        {save.isError && (
          <Alert color="red" variant="light" data-testid="config-error">
            {errorText(save.error)}
          </Alert>
        )}
        {manage && (
          <Group justify="flex-end">
            <Button type="submit" loading={save.isPending} data-testid="save-config">
              {t('common.save')}
            </Button>
          </Group>
        )}
      </Stack>
    </form>
  );
}

/** `file` and `array[file]` fields upload their files and hold `{file_key, mimetype}`. */
function fileRenderers(form: UseFormReturnType<{ config: Record<string, unknown> }>): Record<string, CustomRenderer> {
  const render =
    (multiple: boolean): CustomRenderer =>
    ({ path, label, description }) => {
      const input = form.getInputProps(path);
      return (
        <FileField
          label={label}
          description={description}
          multiple={multiple}
          value={input.value as unknown}
          onChange={(v) => form.setFieldValue(path, v)}
          error={typeof input.error === 'string' ? input.error : undefined}
        />
      );
    };
  return { file: render(false), 'array[file]': render(true) };
}

function ToolsTab({ plugin }: { plugin: Plugin }) {
  const { t, i18n } = useTranslation();
  const tools = componentsOf(plugin).filter((c) => c.kind === 'Tool');
  if (tools.length === 0) return <Text size="sm" c="dimmed">{t('plugins.noTools')}</Text>;
  return (
    <Table.ScrollContainer minWidth={480}>
      <Table>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{t('plugins.name')}</Table.Th>
            <Table.Th>{t('plugins.description')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {tools.map((c) => (
            <Table.Tr key={c.name}>
              <Table.Td>
                <Code>{c.name}</Code>
              </Table.Td>
              <Table.Td>
                <Text size="sm">{localize(c.description, i18n.language)}</Text>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

function ReadmeTab({ id }: { id: string }) {
  const { t } = useTranslation();
  const readme = usePluginReadme(id);
  if (readme.isError) return <ErrorAlert error={readme.error} onRetry={() => void readme.refetch()} />;
  if (!readme.data) return <Skeleton h={120} />;
  if (!readme.data.readme.trim()) return <Text size="sm" c="dimmed">{t('plugins.noReadme')}</Text>;
  // Shown as the text it is (Markdown source), never as HTML from the package.
  return (
    <ScrollArea.Autosize mah={420}>
      <Text size="sm" style={{ whiteSpace: 'pre-wrap' }} data-testid="plugin-readme">
        {readme.data.readme}
      </Text>
    </ScrollArea.Autosize>
  );
}

function LogsTab({ id }: { id: string }) {
  const { t } = useTranslation();
  const logs = usePluginLogs(id);
  if (logs.isError) return <ErrorAlert error={logs.error} onRetry={() => void logs.refetch()} />;
  if (!logs.data) return <Skeleton h={120} />;
  if (logs.data.logs.length === 0) return <Text size="sm" c="dimmed">{t('plugins.noLogs')}</Text>;
  return (
    <ScrollArea.Autosize mah={420}>
      <Stack gap={2} data-testid="plugin-logs">
        {logs.data.logs.map((line, i) => (
          <Text key={i} size="xs" ff="monospace" style={{ wordBreak: 'break-word' }}>
            {new Date(line.ts * 1000).toLocaleTimeString()} {line.level} {line.text}
          </Text>
        ))}
      </Stack>
    </ScrollArea.Autosize>
  );
}
