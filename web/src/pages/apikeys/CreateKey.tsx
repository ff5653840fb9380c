import { Alert, Button, Checkbox, Group, Modal, Select, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { KeyRound } from 'lucide-react';
import { useTranslation } from 'react-i18next';

import type { ApiKeyWithSecret, Permission } from '../../api/types';
import { useSession } from '../../app/session-context';
import { CopyField } from '../../components/CopyField';
import { ErrorAlert } from '../../components/ErrorAlert';
import { applyServerErrors } from '../../forms/serverErrors';
import { mcpConfig, mcpUrl } from './mcp';
import { useCreateApiKey } from './queries';

const EXPIRY_DAYS = ['never', '7', '30', '90', '365', 'custom'] as const;

interface Values {
  name: string;
  description: string;
  scopes: string[];
  expiry: (typeof EXPIRY_DAYS)[number];
  customExpiry: string;
}

/** The RFC 3339 expiry for the chosen option (none for "never"). */
export function expiryFor(choice: Values['expiry'], custom: string, now = Date.now()): string | null {
  if (choice === 'never') return null;
  if (choice === 'custom') return custom ? new Date(custom).toISOString() : null;
  return new Date(now + Number(choice) * 86_400_000).toISOString();
}

export function CreateKeyModal({ onClose, onCreated }: { onClose: () => void; onCreated: (key: ApiKeyWithSecret) => void }) {
  const { t } = useTranslation();
  const { current } = useSession();
  const permissions = current.permissions;
  const create = useCreateApiKey();
  const form = useForm<Values>({
    initialValues: { name: '', description: '', scopes: [...permissions], expiry: '90', customExpiry: '' },
    validate: {
      name: (v) => (v.trim() ? null : t('common.required')),
      scopes: (v) => (v.length ? null : t('apiKeys.scopesRequired')),
      customExpiry: (v, all) => (all.expiry !== 'custom' || (v && new Date(v).getTime() > Date.now()) ? null : t('apiKeys.expiryFuture')),
    },
  });
  const submit = (v: Values) =>
    create.mutate(
      {
        name: v.name.trim(),
        description: v.description.trim() || null,
        scopes: v.scopes,
        expires_at: expiryFor(v.expiry, v.customExpiry),
      },
      { onSuccess: (done) => onCreated(done.key), onError: (error) => applyServerErrors(form, error, { aliases: { expires_at: 'customExpiry' } }) },
    );
  return (
    <Modal opened onClose={onClose} title={t('apiKeys.create')} size="lg">
      <form onSubmit={form.onSubmit(submit)} noValidate>
        <Stack>
          <TextInput label={t('apiKeys.name')} required maxLength={255} data-autofocus {...form.getInputProps('name')} />
          <TextInput label={t('apiKeys.description')} maxLength={255} {...form.getInputProps('description')} />
          <Checkbox.Group label={t('apiKeys.scopes')} description={t('apiKeys.scopesHint')} {...form.getInputProps('scopes')}>
            <SimpleGrid cols={{ base: 1, xs: 2 }} spacing={6} mt={6}>
              {permissions.map((p: Permission) => (
                <Checkbox key={p} value={p} label={<Text size="sm" ff="monospace">{p}</Text>} />
              ))}
            </SimpleGrid>
          </Checkbox.Group>
          <Group align="flex-end" grow>
            <Select
              label={t('apiKeys.expiry')}
              data={EXPIRY_DAYS.map((d) => ({ value: d, label: t(`apiKeys.expiryOption.${d}`) }))}
              allowDeselect={false}
              {...form.getInputProps('expiry')}
            />
            {form.getValues().expiry === 'custom' && (
              <TextInput type="datetime-local" label={t('apiKeys.expiresAt')} {...form.getInputProps('customExpiry')} />
            )}
          </Group>
          {create.isError && <ErrorAlert error={create.error} />}
          <Group justify="flex-end">
            <Button type="submit" loading={create.isPending}>
              {t('common.create')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

/** The secret, once: it cannot be shown again. */
export function CreatedKeyModal({ created, onClose }: { created: ApiKeyWithSecret; onClose: () => void }) {
  const { t } = useTranslation();
  return (
    <Modal opened onClose={onClose} title={t('apiKeys.createdTitle', { name: created.name })} size="lg" closeOnClickOutside={false}>
      <Stack>
        <Alert color="yellow" icon={<KeyRound size={18} />}>
          {t('apiKeys.shownOnce')}
        </Alert>
        <CopyField value={created.key} testId="new-key" />
        <Text size="sm" fw={500}>
          {t('mcp.configFor')}
        </Text>
        <CopyField block value={mcpConfig(mcpUrl(), created.key)} testId="new-key-mcp" />
        <Group justify="flex-end">
          <Button onClick={onClose}>{t('apiKeys.done')}</Button>
        </Group>
      </Stack>
    </Modal>
  );
}
