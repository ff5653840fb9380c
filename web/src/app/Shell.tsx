import { AppShell, Burger, Group, NavLink, ScrollArea } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { Activity, Bot, Boxes, KeyRound, Plug, Puzzle, UsersRound, Workflow } from 'lucide-react';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { NavLink as RouterLink, useLocation } from 'react-router';

import { AccountMenu } from '../components/AccountMenu';
import { LanguageMenu } from '../components/LanguageMenu';
import { Logo } from '../components/Logo';
import { ThemeToggle } from '../components/ThemeToggle';
import { WorkspaceSwitcher } from '../components/WorkspaceSwitcher';

const NAV = [
  { to: '/monitoring', label: 'nav.monitoring', icon: Activity },
  { to: '/platform/bots', label: 'nav.bots', icon: Bot },
  { to: '/pipelines', label: 'nav.pipelines', icon: Workflow },
  { to: '/models', label: 'nav.models', icon: Boxes },
  { to: '/api-keys', label: 'nav.apiKeys', icon: KeyRound },
  { to: '/mcp-servers', label: 'nav.mcpServers', icon: Plug },
  { to: '/plugins', label: 'nav.plugins', icon: Puzzle },
  { to: '/workspace', label: 'nav.workspace', icon: UsersRound },
] as const;

export function Shell({ children }: { children: ReactNode }) {
  const { t } = useTranslation();
  const [opened, { toggle, close }] = useDisclosure();
  const location = useLocation();
  return (
    <AppShell
      header={{ height: 56 }}
      navbar={{ width: 232, breakpoint: 'sm', collapsed: { mobile: !opened } }}
      padding="md"
    >
      <a href="#main" className="skip-link">
        {t('nav.skip')}
      </a>
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="sm" wrap="nowrap">
            <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label={t('nav.toggle')} />
            <Logo />
            <WorkspaceSwitcher />
          </Group>
          <Group gap={4} wrap="nowrap">
            <LanguageMenu />
            <ThemeToggle />
            <AccountMenu />
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" aria-label={t('nav.label')}>
        <ScrollArea>
          {NAV.map((item) => (
            <NavLink
              key={item.to}
              component={RouterLink}
              to={item.to}
              label={t(item.label)}
              leftSection={<item.icon size={18} aria-hidden />}
              active={location.pathname.startsWith(item.to)}
              onClick={close}
            />
          ))}
        </ScrollArea>
      </AppShell.Navbar>
      <AppShell.Main id="main" tabIndex={-1}>
        {children}
      </AppShell.Main>
    </AppShell>
  );
}
