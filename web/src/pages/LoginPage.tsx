import { Alert, Button, PasswordInput, Stack, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useMutation } from '@tanstack/react-query';
import { Clock } from 'lucide-react';
import { useTranslation } from 'react-i18next';
import { Navigate, useNavigate, useSearchParams } from 'react-router';

import { api, unwrap } from '../api/client';
import { session } from '../api/session';
import { AuthLayout } from '../components/AuthLayout';
import { ErrorAlert } from '../components/ErrorAlert';
import { safeNext } from '../lib/next';

export default function LoginPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const next = safeNext(params.get('next'));
  const form = useForm({
    initialValues: { email: params.get('email') ?? '', password: '' },
    validate: {
      email: (v) => (v.trim() ? null : t('common.required')),
      password: (v) => (v ? null : t('common.required')),
    },
  });
  const login = useMutation({
    mutationFn: (v: { email: string; password: string }) =>
      unwrap(api.POST('/api/v1/user/auth', { body: { user: v.email.trim(), password: v.password } })),
    onSuccess: async ({ token }) => {
      session.start(token);
      await navigate(next, { replace: true });
    },
    meta: { quiet: true },
  });

  if (session.token() && !login.isPending) return <Navigate to={next} replace />;

  return (
    <AuthLayout title={t('login.title')}>
      {params.get('expired') === '1' && (
        <Alert color="yellow" icon={<Clock size={18} />} data-testid="session-expired">
          {t('login.expired')}
        </Alert>
      )}
      {params.get('password_changed') === '1' && <Alert color="teal">{t('account.passwordChangedLogin')}</Alert>}
      {login.isError && <ErrorAlert error={login.error} />}
      <form onSubmit={form.onSubmit((v) => login.mutate(v))} noValidate>
        <Stack>
          {/* The page is this form: its first field takes the focus (data-autofocus works only in dialogs). */}
          {/* eslint-disable-next-line jsx-a11y/no-autofocus */}
          <TextInput label={t('auth.email')} type="email" autoComplete="username" required autoFocus {...form.getInputProps('email')} />
          <PasswordInput label={t('auth.password')} autoComplete="current-password" required {...form.getInputProps('password')} />
          <Button type="submit" loading={login.isPending}>
            {t('login.submit')}
          </Button>
        </Stack>
      </form>
    </AuthLayout>
  );
}
