import { Alert, Button, Card, Group, PasswordInput, Stack, Text, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useMutation } from '@tanstack/react-query';
import { ShieldCheck } from 'lucide-react';
import { useTranslation } from 'react-i18next';

import { api, unwrap } from '../api/client';
import { useSession } from '../app/session-context';
import { applyServerErrors } from '../forms/serverErrors';
import { formatDate } from '../lib/format';
import { passwordProblem } from '../lib/validation';

export default function AccountPage() {
  const { t, i18n } = useTranslation();
  const { account } = useSession();
  return (
    <Stack maw={560}>
      <Title order={1} size="h2">
        {t('account.title')}
      </Title>
      <Card withBorder>
        <Stack gap={4}>
          <Group gap="xs">
            <Text size="sm" c="dimmed">
              {t('auth.email')}
            </Text>
            <Text size="sm" fw={500} data-testid="account-email">
              {account.email}
            </Text>
          </Group>
          <Text size="xs" c="dimmed">
            {t('account.since', { date: formatDate(account.created_at, i18n.language) })}
          </Text>
        </Stack>
      </Card>
      <ChangePassword />
    </Stack>
  );
}

function ChangePassword() {
  const { t } = useTranslation();
  const form = useForm({
    initialValues: { current: '', next: '', confirm: '' },
    validate: {
      current: (v) => (v ? null : t('common.required')),
      next: (v) => passwordProblem(v, t),
      confirm: (v, all) => (v === all.next ? null : t('auth.passwordsDiffer')),
    },
  });
  const change = useMutation({
    mutationFn: (v: { current: string; next: string }) =>
      unwrap(api.POST('/api/v1/user/change-password', { body: { current_password: v.current, new_password: v.next } })),
    onSuccess: () => form.reset(),
    onError: (error) => applyServerErrors(form, error, { aliases: { current_password: 'current', new_password: 'next' } }),
  });
  return (
    <Card withBorder>
      <form onSubmit={form.onSubmit((v) => change.mutate(v))} noValidate>
        <Stack>
          <Title order={2} size="h4">
            {t('account.changePassword')}
          </Title>
          {change.isSuccess && (
            <Alert color="teal" icon={<ShieldCheck size={18} />} data-testid="password-changed">
              {t('account.passwordChanged')}
            </Alert>
          )}
          <PasswordInput label={t('account.currentPassword')} autoComplete="current-password" required {...form.getInputProps('current')} />
          <PasswordInput label={t('account.newPassword')} description={t('auth.passwordRule')} autoComplete="new-password" required {...form.getInputProps('next')} />
          <PasswordInput label={t('auth.confirmPassword')} autoComplete="new-password" required {...form.getInputProps('confirm')} />
          <Group>
            <Button type="submit" loading={change.isPending}>
              {t('account.changePassword')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Card>
  );
}
