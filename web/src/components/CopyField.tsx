import { ActionIcon, Code, CopyButton, Group, Tooltip } from '@mantine/core';
import { Check, Copy } from 'lucide-react';
import { useTranslation } from 'react-i18next';

/** A value to copy (a secret shown once, a link, a snippet), with its copy button. */
export function CopyField({ value, block = false, testId }: { value: string; block?: boolean; testId?: string }) {
  const { t } = useTranslation();
  return (
    <Group gap={4} wrap="nowrap" align="flex-start">
      <Code block={block} style={{ flex: 1, wordBreak: 'break-all', whiteSpace: block ? 'pre-wrap' : undefined }} data-testid={testId}>
        {value}
      </Code>
      <CopyButton value={value}>
        {({ copied, copy }) => (
          <Tooltip label={copied ? t('common.copied') : t('common.copy')}>
            <ActionIcon variant="light" color={copied ? 'teal' : 'blue'} onClick={copy} aria-label={t('common.copy')} data-testid={testId ? `${testId}-copy` : undefined}>
              {copied ? <Check size={16} /> : <Copy size={16} />}
            </ActionIcon>
          </Tooltip>
        )}
      </CopyButton>
    </Group>
  );
}
