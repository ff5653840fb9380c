import { Alert, Button, Group, Text } from '@mantine/core';
import { CircleAlert } from 'lucide-react';
import { useTranslation } from 'react-i18next';

import { ApiError } from '../api/errors';
import { errorText } from './notify';

/** A failed load or action, in place: the server's message, its request id, and a retry. */
export function ErrorAlert({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const { t } = useTranslation();
  const requestId = error instanceof ApiError ? error.requestId : null;
  return (
    <Alert color="red" icon={<CircleAlert size={18} />} title={t('errors.title')} role="alert">
      <Text size="sm">{errorText(error)}</Text>
      {requestId && (
        <Text size="xs" c="dimmed" mt={4}>
          {t('errors.requestId', { id: requestId })}
        </Text>
      )}
      {onRetry && (
        <Group mt="sm">
          <Button size="xs" variant="light" color="red" onClick={onRetry}>
            {t('common.retry')}
          </Button>
        </Group>
      )}
    </Alert>
  );
}
