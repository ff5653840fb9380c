import { Group, Pagination, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';

/** Pages a long list; shows nothing while everything fits on one page. */
export function Pager({ total, pageSize, page, onChange }: { total: number; pageSize: number; page: number; onChange: (page: number) => void }) {
  const { t } = useTranslation();
  const pages = Math.ceil(total / pageSize);
  if (pages <= 1) return null;
  return (
    <Group justify="space-between" mt="sm">
      <Text size="xs" c="dimmed">
        {t('common.range', { from: (page - 1) * pageSize + 1, to: Math.min(page * pageSize, total), total })}
      </Text>
      <Pagination total={pages} value={page} onChange={onChange} size="sm" getControlProps={(control) => ({ 'aria-label': t(`common.page_${control}`) })} />
    </Group>
  );
}
