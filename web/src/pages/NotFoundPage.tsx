import { Button, Stack, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

export default function NotFoundPage() {
  const { t } = useTranslation();
  return (
    <Stack align="flex-start">
      <Title order={1} size="h2">
        {t('notFound.title')}
      </Title>
      <Text c="dimmed">{t('notFound.body')}</Text>
      <Button component={Link} to="/" variant="light">
        {t('notFound.home')}
      </Button>
    </Stack>
  );
}
