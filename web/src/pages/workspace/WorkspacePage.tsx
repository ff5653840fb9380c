import { Button, Card, Group, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useTranslation } from 'react-i18next';

import { useSession } from '../../app/session-context';
import { ErrorAlert } from '../../components/ErrorAlert';
import { notifySuccess } from '../../components/notify';
import { applyServerErrors } from '../../forms/serverErrors';
import { isLanguage, LANGUAGES } from '../../i18n/languages';
import { Invitations } from './Invitations';
import { Members } from './Members';
import { useLanguageSetting, useRename, useSetLanguage } from './queries';

import { addArea } from '../../i18n';
import strings from '../../i18n/locales/en_US/workspace.json';

// This area's strings come with this chunk (and, in Chinese, before the page renders).
await addArea('workspace', strings);

export default function WorkspacePage() {
  const { t } = useTranslation();
  const { can } = useSession();
  return (
    <Stack>
      <Title order={1} size="h2">
        {t('workspace.title')}
      </Title>
      <Card withBorder component="section" aria-labelledby="ws-general">
        <Stack>
          <Title order={2} size="h4" id="ws-general">
            {t('workspace.general')}
          </Title>
          <Rename />
          <MessageLanguage />
        </Stack>
      </Card>
      {can('member.view') && <Members />}
      {can('member.invite') && <Invitations />}
    </Stack>
  );
}

function Rename() {
  const { t } = useTranslation();
  const { current, can } = useSession();
  const rename = useRename();
  const form = useForm({
    initialValues: { name: current.workspace.name },
    validate: { name: (v) => (v.trim() ? null : t('common.required')) },
  });
  return (
    <form
      onSubmit={form.onSubmit((v) =>
        rename.mutate(v.name.trim(), {
          onSuccess: () => notifySuccess(t('workspace.renamed')),
          onError: (error) => applyServerErrors(form, error),
        }),
      )}
    >
      <Group align="flex-end">
        <TextInput label={t('workspace.name')} maxLength={255} readOnly={!can('workspace.update')} style={{ flex: 1, maxWidth: 360 }} {...form.getInputProps('name')} />
        {can('workspace.update') && (
          <Button type="submit" variant="light" loading={rename.isPending} disabled={!form.isDirty()}>
            {t('common.save')}
          </Button>
        )}
      </Group>
      {rename.isError && <ErrorAlert error={rename.error} />}
    </form>
  );
}

function MessageLanguage() {
  const { t } = useTranslation();
  const { can } = useSession();
  const setting = useLanguageSetting();
  const set = useSetLanguage();
  if (setting.isError) return <ErrorAlert error={setting.error} onRetry={() => void setting.refetch()} />;
  const names = new Map(LANGUAGES.map((l) => [l.code, l.name]));
  return (
    <Select
      label={t('workspace.messageLanguage')}
      description={t('workspace.messageLanguageHint')}
      maw={360}
      data={(setting.data?.supported_languages ?? []).map((code) => ({ value: code, label: names.get(code) ?? code }))}
      value={setting.data?.language ?? null}
      disabled={!setting.data || !can('workspace.update') || set.isPending}
      allowDeselect={false}
      onChange={(value) => {
        if (isLanguage(value)) set.mutate(value, { onSuccess: () => notifySuccess(t('workspace.languageSaved')) });
      }}
      data-testid="message-language"
    />
  );
}

export function SectionTitle({ id, title, hint }: { id: string; title: string; hint?: string }) {
  return (
    <div>
      <Title order={2} size="h4" id={id}>
        {title}
      </Title>
      {hint && (
        <Text size="sm" c="dimmed">
          {hint}
        </Text>
      )}
    </div>
  );
}
