import { Card, Select, Stack, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';

import type { ApiKey } from '../../api/types';
import { CopyField } from '../../components/CopyField';
import { mcpConfig, mcpUrl } from './mcp';

/** The MCP endpoint and a client configuration for a chosen key. The secret itself was shown
 *  only at creation, so the snippet names the key where its secret goes. */
export function McpPanel({ keys }: { keys: ApiKey[] }) {
  const { t } = useTranslation();
  const [chosen, setChosen] = useState<string | null>(null);
  const key = keys.find((k) => String(k.id) === chosen) ?? keys[0];
  const url = mcpUrl();
  return (
    <Card withBorder component="section" aria-labelledby="mcp-title">
      <Stack gap="sm">
        <Title order={2} size="h4" id="mcp-title">
          {t('mcp.title')}
        </Title>
        <Text size="sm" c="dimmed">
          {t('mcp.subtitle')}
        </Text>
        <div>
          <Text size="sm" fw={500} mb={4}>
            {t('mcp.endpoint')}
          </Text>
          <CopyField value={url} testId="mcp-url" />
        </div>
        {keys.length === 0 ? (
          <Text size="sm">{t('mcp.noKeys')}</Text>
        ) : (
          <>
            <Select
              label={t('mcp.key')}
              data={keys.map((k) => ({ value: String(k.id), label: k.name }))}
              value={key ? String(key.id) : null}
              onChange={setChosen}
              allowDeselect={false}
              maw={320}
            />
            <CopyField block value={mcpConfig(url, t('mcp.secretOf', { name: key?.name ?? '' }))} testId="mcp-snippet" />
            <Text size="xs" c="dimmed">
              {t('mcp.secretHint')}
            </Text>
          </>
        )}
      </Stack>
    </Card>
  );
}
