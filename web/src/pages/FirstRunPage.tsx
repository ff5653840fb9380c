// First run: the instance has no account yet. The first one becomes the owner of the first
// Workspace; we log it in right away.
import { Button, PasswordInput, Stack, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';

import { api, unwrap } from '../api/client';
import { keys } from '../api/keys';
import { session } from '../api/session';
import { AuthLayout } from '../components/AuthLayout';
import { applyServerErrors } from '../forms/serverErrors';
import { emailProblem, passwordProblem } from '../lib/validation';

export default function FirstRunPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const form = useForm({
    initialValues: { email: '', password: '', confirm: '' },
    validate: {
      email: (v) => emailProblem(v, t),
      password: (v) => passwordProblem(v, t),
      confirm: (v, all) => (v === all.password ? null : t('auth.passwordsDiffer')),
    },
  });
  const setup = useMutation({
    mutationFn: async ({ email, password }: { email: string; password: string }) => {
      await unwrap(api.POST('/api/v1/user/init', { body: { user: email, password } }));
      return unwrap(api.POST('/api/v1/user/auth', { body: { user: email, password } }));
    },
    onSuccess: async ({ token }) => {
      session.start(token);
      await queryClient.invalidateQueries({ queryKey: keys.systemInfo });
      await navigate('/models', { replace: true });
    },
    onError: (error) => {
      applyServerErrors(form, error, { aliases: { user: 'email' } });
      void queryClient.invalidateQueries({ queryKey: keys.systemInfo });
    },
  });
  return (
    <AuthLayout title={t('setup.title')} subtitle={t('setup.subtitle')}>
      <form onSubmit={form.onSubmit((v) => setup.mutate({ email: v.email.trim(), password: v.password }))} noValidate>
        <Stack>
          {/* The page is this form: its first field takes the focus (data-autofocus works only in dialogs). */}
          {/* eslint-disable-next-line jsx-a11y/no-autofocus */}
          <TextInput label={t('auth.email')} type="email" autoComplete="username" required autoFocus {...form.getInputProps('email')} />
          <PasswordInput label={t('auth.password')} description={t('auth.passwordRule')} autoComplete="new-password" required {...form.getInputProps('password')} />
          <PasswordInput label={t('auth.confirmPassword')} autoComplete="new-password" required {...form.getInputProps('confirm')} />
          <Button type="submit" loading={setup.isPending}>
            {t('setup.submit')}
          </Button>
        </Stack>
      </form>
    </AuthLayout>
  );
}
