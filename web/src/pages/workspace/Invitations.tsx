import { Alert, Badge, Button, Card, Group, Select, Stack, Table, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { Link2 } from 'lucide-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';

import type { CreatedInvitation, Invitation, InvitableRole } from '../../api/types';
import { CopyField } from '../../components/CopyField';
import { ErrorAlert } from '../../components/ErrorAlert';
import { notifySuccess } from '../../components/notify';
import { Pager } from '../../components/Pager';
import { applyServerErrors } from '../../forms/serverErrors';
import { formatDate } from '../../lib/format';
import { emailProblem } from '../../lib/validation';
import { MEMBERS_PAGE, useInvitations, useInvite, useRevokeInvitation } from './queries';
import { SectionTitle } from './WorkspacePage';
import { openConfirm } from '../../components/confirm';

const ROLES: InvitableRole[] = ['admin', 'developer', 'operator', 'viewer'];

/** The server links to its public URL; the browser's own origin is what the invitee can reach
 *  when no public URL is configured, so the path and token are kept and the origin follows. */
export function linkFor(created: CreatedInvitation, origin = globalThis.location.origin): string {
  const url = new URL(created.link, origin);
  return url.host.startsWith('127.0.0.1') || url.host.startsWith('localhost') ? `${origin}${url.pathname}${url.hash}` : created.link;
}

export function Invitations() {
  const { t, i18n } = useTranslation();
  const [page, setPage] = useState(1);
  const list = useInvitations(page);
  const invite = useInvite();
  const revoke = useRevokeInvitation();
  const [created, setCreated] = useState<CreatedInvitation | null>(null);
  const form = useForm<{ email: string; role: InvitableRole }>({
    initialValues: { email: '', role: 'developer' },
    validate: { email: (v) => emailProblem(v, t) },
  });

  const confirmRevoke = (inv: Invitation) =>
    openConfirm({
      title: t('invitations.revokeTitle', { email: inv.normalized_email }),
      children: <Text size="sm">{t('invitations.revokeBody')}</Text>,
      labels: { confirm: t('invitations.revoke'), cancel: t('common.cancel') },
      confirmProps: { color: 'red' },
      onConfirm: () =>
        revoke.mutate(inv.uuid, {
          onSuccess: () => {
            notifySuccess(t('invitations.revoked'));
            // The link shown for it no longer works: stop showing it.
            setCreated((shown) => (shown?.invitation.uuid === inv.uuid ? null : shown));
          },
        }),
    });

  return (
    <Card withBorder component="section" aria-labelledby="ws-invitations">
      <Stack>
        <SectionTitle id="ws-invitations" title={t('invitations.title')} hint={t('invitations.hint')} />
        <form
          onSubmit={form.onSubmit((v) =>
            invite.mutate(
              { email: v.email.trim(), role: v.role },
              {
                onSuccess: (done) => {
                  setCreated(done);
                  form.reset();
                },
                onError: (error) => applyServerErrors(form, error),
              },
            ),
          )}
          noValidate
        >
          <Group align="flex-start">
            <TextInput label={t('auth.email')} type="email" required style={{ flex: 1, minWidth: 200 }} {...form.getInputProps('email')} />
            <Select label={t('members.role')} w={160} data={ROLES.map((r) => ({ value: r, label: t(`roles.${r}`) }))} allowDeselect={false} {...form.getInputProps('role')} />
            <Button type="submit" mt={25} loading={invite.isPending}>
              {t('invitations.create')}
            </Button>
          </Group>
        </form>
        {invite.isError && <ErrorAlert error={invite.error} />}
        {created && (
          <Alert color="teal" icon={<Link2 size={18} />} title={t('invitations.createdTitle', { email: created.invitation.normalized_email })} withCloseButton onClose={() => setCreated(null)} closeButtonLabel={t('common.close')}>
            <Stack gap={6}>
              <Text size="sm">{t('invitations.shownOnce')}</Text>
              <CopyField value={linkFor(created)} testId="invitation-link" />
            </Stack>
          </Alert>
        )}
        {list.isError && <ErrorAlert error={list.error} onRetry={() => void list.refetch()} />}
        {list.data && list.data.invitations.length > 0 && (
          <Table.ScrollContainer minWidth={560}>
            <Table verticalSpacing="xs">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{t('auth.email')}</Table.Th>
                  <Table.Th>{t('members.role')}</Table.Th>
                  <Table.Th>{t('invitations.status')}</Table.Th>
                  <Table.Th>{t('invitations.expires')}</Table.Th>
                  <Table.Th>
                    <span className="visually-hidden">{t('common.actions')}</span>
                  </Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {list.data.invitations.map((inv) => (
                  <Table.Tr key={inv.uuid} data-testid={`invitation-${inv.normalized_email}`}>
                    <Table.Td>
                      <Text size="sm">{inv.normalized_email}</Text>
                    </Table.Td>
                    <Table.Td>{t(`roles.${inv.role}`, { defaultValue: inv.role })}</Table.Td>
                    <Table.Td>
                      <Badge variant="light" color={inv.status === 'pending' ? 'blue' : 'gray'}>
                        {t(`invitations.state.${inv.status}`, { defaultValue: inv.status })}
                      </Badge>
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm">{formatDate(inv.expires_at, i18n.language)}</Text>
                    </Table.Td>
                    <Table.Td>
                      {inv.status === 'pending' && (
                        <Button size="compact-xs" variant="subtle" color="red" onClick={() => confirmRevoke(inv)} aria-label={t('invitations.revokeNamed', { email: inv.normalized_email })}>
                          {t('invitations.revoke')}
                        </Button>
                      )}
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
        {list.data && <Pager total={list.data.total} pageSize={MEMBERS_PAGE} page={page} onChange={setPage} />}
      </Stack>
    </Card>
  );
}
