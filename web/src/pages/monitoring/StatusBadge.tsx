import { Badge } from '@mantine/core';
import { useTranslation } from 'react-i18next';

const COLORS: Record<string, string> = { completed: 'teal', failed: 'red', running: 'blue', queued: 'gray', cancelled: 'yellow', ignored: 'gray' };

export function StatusBadge({ status }: { status: string }) {
  const { t } = useTranslation();
  return (
    <Badge size="sm" variant="light" color={COLORS[status] ?? 'gray'}>
      {t(`monitoring.status.${status}`, { defaultValue: status })}
    </Badge>
  );
}
