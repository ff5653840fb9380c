import { ActionIcon, Menu, Text, Tooltip } from '@mantine/core';
import { LogOut, UserRound } from 'lucide-react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

import { api } from '../api/client';
import { session } from '../api/session';
import { useSession } from '../app/session-context';

/** Logs out on the server, then here (even if the server could not be reached). */
export async function logout(): Promise<void> {
  try {
    await api.POST('/api/v1/user/logout');
  } finally {
    session.end('logout');
  }
}

export function AccountMenu() {
  const { t } = useTranslation();
  const { account } = useSession();
  return (
    <Menu position="bottom-end" withinPortal>
      <Menu.Target>
        <Tooltip label={t('account.menu')}>
          <ActionIcon variant="subtle" size="lg" aria-label={t('account.menu')} data-testid="account-menu">
            <UserRound size={18} />
          </ActionIcon>
        </Tooltip>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Label>
          <Text size="xs" truncate maw={220}>
            {account.email}
          </Text>
        </Menu.Label>
        <Menu.Item component={Link} to="/account" leftSection={<UserRound size={14} />}>
          {t('account.title')}
        </Menu.Item>
        <Menu.Item leftSection={<LogOut size={14} />} onClick={() => void logout()}>
          {t('account.logout')}
        </Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
}
