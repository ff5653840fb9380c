import { Group, Text } from '@mantine/core';
import { Link } from 'react-router';

export function Logo() {
  return (
    <Link to="/" style={{ textDecoration: 'none', color: 'inherit' }} aria-label="LangBot">
      <Group gap={8} wrap="nowrap">
        <img src="/favicon.svg" alt="" width={26} height={26} />
        <Text fw={700} visibleFrom="xs">
          LangBot
        </Text>
      </Group>
    </Link>
  );
}
