import { Card, Group, Stack, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';

import { CenteredCard } from './Centered';
import { LanguageMenu } from './LanguageMenu';
import { ThemeToggle } from './ThemeToggle';

/** The frame of the pages before login: a card with the language and theme switches. */
export function AuthLayout({ title, subtitle, children }: { title: string; subtitle?: string; children: ReactNode }) {
  return (
    <CenteredCard>
      <Group justify="space-between" component="header">
        <Group gap={8}>
          <img src="/favicon.svg" alt="" width={28} height={28} />
          <Text fw={700}>LangBot</Text>
        </Group>
        <Group gap={4}>
          <LanguageMenu />
          <ThemeToggle />
        </Group>
      </Group>
      <Card withBorder padding="lg" component="main">
        <Stack>
          <div>
            <Title order={1} size="h3">
              {title}
            </Title>
            {subtitle && (
              <Text size="sm" c="dimmed" mt={4}>
                {subtitle}
              </Text>
            )}
          </div>
          {children}
        </Stack>
      </Card>
    </CenteredCard>
  );
}
