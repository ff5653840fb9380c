// Add or change an MCP server: name and mode, then the mode's settings (HTTP: URL, headers,
// timeouts; stdio: command, arguments, environment). Stored secrets show as `***` and are kept
// unless replaced. Test connects to the draft without saving it.
import { ActionIcon, Alert, Button, Checkbox, Group, Modal, NativeSelect, NumberInput, PasswordInput, SimpleGrid, Stack, Text, TextInput, Tooltip } from '@mantine/core';
import { useForm, type UseFormReturnType } from '@mantine/form';
import { Info, Plus, Trash2 } from 'lucide-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';

import { ApiError } from '../../api/errors';
import { ErrorAlert } from '../../components/ErrorAlert';
import { notifySuccess } from '../../components/notify';
import { MASK } from '../../forms/fields';
import { applyServerErrors } from '../../forms/serverErrors';
import {
  DEFAULT_TIMEOUT,
  DEFAULT_TOOL_CALL_TIMEOUT,
  emptyValues,
  fieldAliases,
  fromServer,
  hasMask,
  isHttp,
  isMode,
  MAX_TIMEOUT,
  MAX_TOOL_CALL_TIMEOUT,
  type McpServer,
  MODES,
  type RuntimeInfo,
  toExtraArgs,
  type Values,
} from './model';
import { useSaveMcpServer, useTestMcpServer } from './queries';
import { TestOutcome } from './StatusBadge';

interface Props {
  /** The server to edit; null to add one. */
  server: McpServer | null;
  stdioEnabled: boolean;
  onClose: () => void;
}

export function ServerFormModal({ server, stdioEnabled, onClose }: Props) {
  const { t } = useTranslation();
  return (
    <Modal opened onClose={onClose} size="lg" title={server ? t('mcpServers.editTitle', { name: server.name }) : t('mcpServers.add')}>
      <ServerForm server={server} stdioEnabled={stdioEnabled} onDone={onClose} />
    </Modal>
  );
}

function ServerForm({ server, stdioEnabled, onDone }: { server: McpServer | null; stdioEnabled: boolean; onDone: () => void }) {
  const { t } = useTranslation();
  const save = useSaveMcpServer();
  const test = useTestMcpServer();
  const [failure, setFailure] = useState<unknown>(null);
  const [outcome, setOutcome] = useState<RuntimeInfo | null>(null);
  const form = useForm<Values>({
    mode: 'controlled',
    initialValues: server ? fromServer(server) : emptyValues(),
    validate: (v) => {
      const errors: Record<string, string> = {};
      const name = v.name.trim();
      if (!name) errors.name = t('common.required');
      else if (name.includes('/')) errors.name = t('mcpServers.nameSlash');
      if (isHttp(v.mode)) {
        const url = v.url.trim();
        if (!url) errors.url = t('common.required');
        else if (!/^https?:\/\/[^/\s]+/i.test(url)) errors.url = t('mcpServers.urlInvalid');
      } else if (!v.command.trim()) {
        errors.command = t('common.required');
      }
      const rows = isHttp(v.mode) ? 'headers' : 'env';
      v[rows].forEach((p, i) => {
        if (!p.key.trim() && p.value) errors[`${rows}.${i}.key`] = t('common.required');
      });
      return errors;
    },
  });
  const values = form.getValues();
  const http = isHttp(values.mode);

  /** The server's refusal, at the field it concerns when it names one. */
  const showError = (error: unknown) => {
    if (error instanceof ApiError && error.code === 'mcp_stdio_disabled') {
      form.setFieldError('mode', error.message);
      setFailure(null);
      return;
    }
    if (error instanceof ApiError && error.code === 'mcp_stdio_command_not_allowed') {
      form.setFieldError('command', error.message);
      setFailure(null);
      return;
    }
    applyServerErrors(form, error, { aliases: fieldAliases(form.getValues()) });
    setFailure(error);
  };

  const body = (v: Values) => ({ name: v.name.trim(), mode: v.mode, enable: v.enable, extra_args: toExtraArgs(v) });

  const submit = (v: Values) => {
    setFailure(null);
    save.mutate(
      { original: server?.name ?? null, body: body(v) },
      {
        onSuccess: (name) => {
          notifySuccess(server ? t('mcpServers.saved', { name }) : t('mcpServers.created', { name }));
          onDone();
        },
        onError: showError,
      },
    );
  };

  const runTest = () => {
    setOutcome(null);
    setFailure(null);
    if (form.validate().hasErrors) return;
    const { name, mode, extra_args } = body(form.getValues());
    test.mutate({ draft: { name, mode, extra_args } }, { onSuccess: (done) => setOutcome(done.runtime_info), onError: showError });
  };

  const masked = server !== null && hasMask(values);
  const modeLabel = (m: string) => t(`mcpServers.mode.${m}`) + (m === 'stdio' && !stdioEnabled ? ` — ${t('mcpServers.stdioOff')}` : '');

  return (
    <form onSubmit={form.onSubmit(submit)} noValidate>
      <Stack>
        <TextInput label={t('mcpServers.name')} description={t('mcpServers.nameHint')} required maxLength={255} data-autofocus {...form.getInputProps('name')} />
        <NativeSelect
          label={t('mcpServers.modeLabel')}
          description={t(`mcpServers.modeHint.${values.mode}`)}
          data={MODES.map((m) => ({ value: m, label: modeLabel(m) }))}
          {...form.getInputProps('mode')}
          onChange={(e) => {
            const next = e.currentTarget.value;
            if (isMode(next)) form.setFieldValue('mode', next);
            form.clearFieldError('mode');
            setOutcome(null);
          }}
        />
        {values.mode === 'stdio' && !stdioEnabled && (
          <Alert color="yellow" variant="light" icon={<Info size={18} />} data-testid="stdio-off-hint">
            {t('mcpServers.stdioDisabled')}
          </Alert>
        )}
        {http ? (
          <>
            <TextInput label={t('mcpServers.url')} placeholder="https://example.com/mcp" required {...form.getInputProps('url')} />
            <PairRows form={form} list="headers" />
            <SimpleGrid cols={{ base: 1, xs: 2 }}>
              <NumberInput
                label={t('mcpServers.timeout')}
                description={t('mcpServers.timeoutHint')}
                placeholder={String(DEFAULT_TIMEOUT)}
                min={0}
                max={MAX_TIMEOUT}
                allowDecimal={false}
                {...form.getInputProps('timeout')}
              />
              <CallTimeout form={form} />
            </SimpleGrid>
          </>
        ) : (
          <>
            <TextInput label={t('mcpServers.command')} placeholder="npx" required ff="monospace" {...form.getInputProps('command')} />
            <ArgRows form={form} />
            <PairRows form={form} list="env" />
            <SimpleGrid cols={{ base: 1, xs: 2 }}>
              <CallTimeout form={form} />
            </SimpleGrid>
          </>
        )}
        {server === null && <Checkbox label={t('mcpServers.enableNow')} {...form.getInputProps('enable', { type: 'checkbox' })} />}
        {outcome && <TestOutcome info={outcome} showTools />}
        {failure !== null && <ErrorAlert error={failure} />}
        {masked && (
          <Text size="xs" c="dimmed">
            {t('mcpServers.testMasked')}
          </Text>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={runTest} loading={test.isPending} disabled={masked}>
            {t('mcpServers.test')}
          </Button>
          <Button type="submit" loading={save.isPending}>
            {server ? t('common.save') : t('common.create')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

function CallTimeout({ form }: { form: UseFormReturnType<Values> }) {
  const { t } = useTranslation();
  return (
    <NumberInput
      label={t('mcpServers.callTimeout')}
      description={t('mcpServers.callTimeoutHint')}
      placeholder={String(DEFAULT_TOOL_CALL_TIMEOUT)}
      min={0}
      max={MAX_TOOL_CALL_TIMEOUT}
      allowDecimal={false}
      {...form.getInputProps('tool_call_timeout_sec')}
    />
  );
}

/** Headers (HTTP) or environment variables (stdio): name/value rows. A stored secret shows as
 *  `***` (its name fixed, since the server keeps it by name) until replaced. */
function PairRows({ form, list }: { form: UseFormReturnType<Values>; list: 'headers' | 'env' }) {
  const { t } = useTranslation();
  const [replacing, setReplacing] = useState<string | null>(null);
  const rows = form.getValues()[list];
  const label = list === 'headers' ? 'header' : 'env';
  return (
    <Stack gap={6}>
      <Text size="sm" fw={500}>
        {t(`mcpServers.${list}`)}
      </Text>
      {rows.length === 0 && (
        <Text size="xs" c="dimmed">
          {t(`mcpServers.${list}None`)}
        </Text>
      )}
      {rows.map((row, i) => {
        const path = `${list}.${i}.value`;
        const stored = row.value === MASK;
        return (
          <Group key={form.key(`${list}.${i}`)} gap="xs" wrap="nowrap" align="flex-start" data-testid={`${label}-row-${i}`}>
            <TextInput
              style={{ flex: 1 }}
              aria-label={t(`mcpServers.${label}Name`, { n: i + 1 })}
              placeholder={list === 'headers' ? 'Authorization' : 'API_TOKEN'}
              readOnly={stored}
              ff="monospace"
              {...form.getInputProps(`${list}.${i}.key`)}
            />
            {stored ? (
              <Group gap={4} wrap="nowrap" style={{ flex: 1 }}>
                <PasswordInput
                  style={{ flex: 1 }}
                  aria-label={t(`mcpServers.${label}Value`, { n: i + 1 })}
                  value={MASK}
                  readOnly
                  visible={false}
                  visibilityToggleButtonProps={{ style: { display: 'none' } }}
                  aria-describedby={`${list}-kept`}
                />
                <Button
                  variant="light"
                  size="xs"
                  mt={4}
                  onClick={() => {
                    setReplacing(path);
                    form.setFieldValue(path, '');
                  }}
                  aria-label={t('mcpServers.replaceNamed', { name: row.key })}
                >
                  {t('mcpServers.replace')}
                </Button>
              </Group>
            ) : (
              <PasswordInput
                style={{ flex: 1 }}
                aria-label={t(`mcpServers.${label}Value`, { n: i + 1 })}
                autoComplete="off"
                ref={(el) => {
                  if (el && replacing === path) {
                    el.focus();
                    setReplacing(null);
                  }
                }}
                {...form.getInputProps(path)}
              />
            )}
            <Tooltip label={t('mcpServers.removeRow')}>
              <ActionIcon variant="subtle" color="red" size="lg" aria-label={t(`mcpServers.remove_${label}`, { n: i + 1 })} onClick={() => form.removeListItem(list, i)}>
                <Trash2 size={16} />
              </ActionIcon>
            </Tooltip>
          </Group>
        );
      })}
      {rows.some((r) => r.value === MASK) && (
        <Text size="xs" c="dimmed" id={`${list}-kept`}>
          {t('mcpServers.secretKept')}
        </Text>
      )}
      <Group>
        <Button variant="subtle" size="compact-sm" leftSection={<Plus size={14} />} onClick={() => form.insertListItem(list, { key: '', value: '' })}>
          {t(`mcpServers.add_${label}`)}
        </Button>
      </Group>
    </Stack>
  );
}

function ArgRows({ form }: { form: UseFormReturnType<Values> }) {
  const { t } = useTranslation();
  const args = form.getValues().args;
  return (
    <Stack gap={6}>
      <Text size="sm" fw={500}>
        {t('mcpServers.args')}
      </Text>
      {args.length === 0 && (
        <Text size="xs" c="dimmed">
          {t('mcpServers.argsNone')}
        </Text>
      )}
      {args.map((_, i) => (
        <Group key={form.key(`args.${i}`)} gap="xs" wrap="nowrap" align="flex-start">
          <TextInput style={{ flex: 1 }} ff="monospace" aria-label={t('mcpServers.argN', { n: i + 1 })} {...form.getInputProps(`args.${i}`)} />
          <Tooltip label={t('mcpServers.removeRow')}>
            <ActionIcon variant="subtle" color="red" size="lg" aria-label={t('mcpServers.remove_arg', { n: i + 1 })} onClick={() => form.removeListItem('args', i)}>
              <Trash2 size={16} />
            </ActionIcon>
          </Tooltip>
        </Group>
      ))}
      <Group>
        <Button variant="subtle" size="compact-sm" leftSection={<Plus size={14} />} onClick={() => form.insertListItem('args', '')}>
          {t('mcpServers.add_arg')}
        </Button>
      </Group>
    </Stack>
  );
}
