import { Badge, Button, Card, Select, Stack, Table, Text } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';

import type { Membership, Role } from '../../api/types';
import { useSession } from '../../app/session-context';
import { ErrorAlert } from '../../components/ErrorAlert';
import { notifySuccess } from '../../components/notify';
import { Pager } from '../../components/Pager';
import { formatDate } from '../../lib/format';
import { MEMBERS_PAGE, useChangeRole, useMembers, useRemoveMember } from './queries';
import { SectionTitle } from './WorkspacePage';
import { openConfirm } from '../../components/confirm';

export const ASSIGNABLE: Role[] = ['admin', 'developer', 'operator', 'viewer'];

export function Members() {
  const { t, i18n } = useTranslation();
  const { can, account } = useSession();
  const [page, setPage] = useState(1);
  const members = useMembers(page);
  const changeRole = useChangeRole();
  const remove = useRemoveMember();

  const confirmRemove = (m: Membership) =>
    openConfirm({
      title: t('members.removeTitle', { email: m.email }),
      children: <Text size="sm">{t('members.removeBody')}</Text>,
      labels: { confirm: t('members.remove'), cancel: t('common.cancel') },
      confirmProps: { color: 'red' },
      onConfirm: () => remove.mutate(m.account_uuid, { onSuccess: () => notifySuccess(t('members.removed', { email: m.email })) }),
    });

  return (
    <Card withBorder component="section" aria-labelledby="ws-members">
      <Stack>
        <SectionTitle id="ws-members" title={t('members.title')} hint={t('members.hint')} />
        {members.isError && <ErrorAlert error={members.error} onRetry={() => void members.refetch()} />}
        <Table.ScrollContainer minWidth={560}>
          <Table verticalSpacing="xs">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('auth.email')}</Table.Th>
                <Table.Th>{t('members.role')}</Table.Th>
                <Table.Th>{t('members.joined')}</Table.Th>
                <Table.Th>
                  <span className="visually-hidden">{t('common.actions')}</span>
                </Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {members.data?.members.map((m) => {
                const editable = m.role !== 'owner' && m.account_uuid !== account.account_uuid;
                return (
                  <Table.Tr key={m.uuid}>
                    <Table.Td>
                      <Text size="sm">{m.email}</Text>
                    </Table.Td>
                    <Table.Td>
                      {editable && can('member.update_role') ? (
                        <Select
                          size="xs"
                          w={150}
                          aria-label={t('members.roleOf', { email: m.email })}
                          data={ASSIGNABLE.map((r) => ({ value: r, label: t(`roles.${r}`) }))}
                          value={m.role}
                          allowDeselect={false}
                          onChange={(role) => role && changeRole.mutate({ account: m.account_uuid, role: role as Role })}
                        />
                      ) : (
                        <Badge variant="light">{t(`roles.${m.role}`, { defaultValue: m.role })}</Badge>
                      )}
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm">{formatDate(m.joined_at ?? m.created_at, i18n.language)}</Text>
                    </Table.Td>
                    <Table.Td>
                      {editable && can('member.remove') && (
                        <Button size="compact-xs" variant="subtle" color="red" onClick={() => confirmRemove(m)} aria-label={t('members.removeNamed', { email: m.email })}>
                          {t('members.remove')}
                        </Button>
                      )}
                    </Table.Td>
                  </Table.Tr>
                );
              })}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
        {members.data && <Pager total={members.data.total} pageSize={MEMBERS_PAGE} page={page} onChange={setPage} />}
      </Stack>
    </Card>
  );
}
