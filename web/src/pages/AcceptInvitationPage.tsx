// Accepting an invitation (`/invitations/accept#token=lbi_…`), logged in or not: a logged-in
// invitee joins at once; anyone else creates the account here or logs in first.
import { Alert, Badge, Button, Divider, Group, PasswordInput, Stack, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link, useLocation, useNavigate } from 'react-router';

import { api, unwrap } from '../api/client';
import { keys } from '../api/keys';
import { session } from '../api/session';
import type { InspectedInvitation } from '../api/types';
import { AuthLayout } from '../components/AuthLayout';
import { FullPageLoader } from '../components/Centered';
import { ErrorAlert } from '../components/ErrorAlert';
import { applyServerErrors } from '../forms/serverErrors';
import { formatDate } from '../lib/format';
import { passwordProblem } from '../lib/validation';

function tokenFrom(location: { hash: string; search: string }): string {
  const fromHash = new URLSearchParams(location.hash.replace(/^#/, '')).get('token');
  return fromHash ?? new URLSearchParams(location.search).get('token') ?? '';
}

export default function AcceptInvitationPage() {
  const { t } = useTranslation();
  const location = useLocation();
  const token = tokenFrom(location);
  const inspect = useQuery({
    queryKey: ['invitation', token],
    queryFn: () => unwrap(api.POST('/api/v1/invitations/inspect', { body: { token } })),
    enabled: token !== '',
    retry: false,
  });
  if (!token) {
    return (
      <AuthLayout title={t('invite.title')}>
        <Alert color="red">{t('invite.noToken')}</Alert>
      </AuthLayout>
    );
  }
  if (inspect.isPending) return <FullPageLoader />;
  if (inspect.isError) {
    return (
      <AuthLayout title={t('invite.title')}>
        <ErrorAlert error={inspect.error} />
        <Button component={Link} to="/login" variant="light">
          {t('invite.toLogin')}
        </Button>
      </AuthLayout>
    );
  }
  return <Invitation token={token} found={inspect.data} here={location.pathname + location.search + location.hash} />;
}

function Invitation({ token, found, here }: { token: string; found: InspectedInvitation; here: string }) {
  const { t, i18n } = useTranslation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const loggedIn = session.token() !== null;
  const { invitation, workspace } = found;

  const join = async (workspaceUuid: string) => {
    session.selectWorkspace(workspaceUuid);
    await queryClient.invalidateQueries({ queryKey: keys.workspaces });
    await navigate('/models', { replace: true });
  };
  const accept = useMutation({
    mutationFn: () => unwrap(api.POST('/api/v1/invitations/accept', { body: { token } })),
    onSuccess: (done) => join(done.workspace_uuid),
    meta: { quiet: true },
  });

  return (
    <AuthLayout title={t('invite.title')} subtitle={t('invite.subtitle', { workspace: workspace.name })}>
      <Stack gap={4}>
        <Group gap="xs">
          <Text size="sm" c="dimmed">
            {t('invite.for')}
          </Text>
          <Text size="sm" fw={500}>
            {invitation.normalized_email}
          </Text>
        </Group>
        <Group gap="xs">
          <Text size="sm" c="dimmed">
            {t('invite.role')}
          </Text>
          <Badge variant="light">{t(`roles.${invitation.role}`)}</Badge>
        </Group>
        <Text size="xs" c="dimmed">
          {t('invite.expires', { date: formatDate(invitation.expires_at, i18n.language) })}
        </Text>
      </Stack>
      {accept.isError && <ErrorAlert error={accept.error} />}
      {loggedIn ? (
        <Button onClick={() => accept.mutate()} loading={accept.isPending}>
          {t('invite.accept')}
        </Button>
      ) : (
        <>
          <Register token={token} email={invitation.normalized_email} onJoined={join} />
          <Divider label={t('invite.haveAccount')} />
          <Button component={Link} to={`/login?next=${encodeURIComponent(here)}&email=${encodeURIComponent(invitation.normalized_email)}`} variant="light">
            {t('invite.loginToAccept')}
          </Button>
        </>
      )}
    </AuthLayout>
  );
}

function Register({ token, email, onJoined }: { token: string; email: string; onJoined: (ws: string) => Promise<void> }) {
  const { t } = useTranslation();
  const form = useForm({
    initialValues: { password: '', confirm: '' },
    validate: {
      password: (v) => passwordProblem(v, t),
      confirm: (v, all) => (v === all.password ? null : t('auth.passwordsDiffer')),
    },
  });
  const register = useMutation({
    mutationFn: async (password: string) => {
      const done = await unwrap(
        api.POST('/api/v1/invitations/accept', { body: { token, registration: { email, password } } }),
      );
      const { token: sessionToken } = await unwrap(api.POST('/api/v1/user/auth', { body: { user: email, password } }));
      session.start(sessionToken);
      return done;
    },
    onSuccess: (done) => onJoined(done.workspace_uuid),
    onError: (error) => applyServerErrors(form, error, { aliases: { 'registration.password': 'password' } }),
  });
  return (
    <form onSubmit={form.onSubmit((v) => register.mutate(v.password))} noValidate>
      <Stack>
        <TextInput label={t('auth.email')} value={email} readOnly />
        <PasswordInput label={t('auth.password')} description={t('auth.passwordRule')} autoComplete="new-password" required {...form.getInputProps('password')} />
        <PasswordInput label={t('auth.confirmPassword')} autoComplete="new-password" required {...form.getInputProps('confirm')} />
        <Button type="submit" loading={register.isPending}>
          {t('invite.register')}
        </Button>
      </Stack>
    </form>
  );
}
